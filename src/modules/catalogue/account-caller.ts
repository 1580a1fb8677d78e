import type { Db } from '../../db/database.js';
import { clientCaller, type Caller } from './caller.js';
import { accountWithDiscounts } from './caller.repository.js';

/**
 * The caller a client account is when nobody's request is there (the wishlist offers, a login's basket): what
 * its own bearer token would make of it (callerResolver), its kind, code and discounts and its
 * company's, so whatever is priced for it is what it sees logged in. Undefined for an unknown account.
 */
export async function clientAccountCaller(db: Db, clientAccountId: number): Promise<Caller | undefined> {
  const row = await accountWithDiscounts(db, clientAccountId).select(['client_account.code', 'client_account.type']).executeTakeFirst();
  if (!row) return undefined;
  const identity = { role: row.type, clientCode: row.code, clientAccountId };
  return clientCaller(identity, {
    client_discount: row.client_discount,
    company_id: row.company_id === null ? null : Number(row.company_id),
    company_discount: row.company_discount,
  });
}

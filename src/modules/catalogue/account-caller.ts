import type { Db } from '../../db/database.js';
import { clientCaller, type Caller } from './caller.js';

/**
 * The caller a client account is when nobody's request is there (the wishlist offers, a login's basket): what
 * its own bearer token would make of it (callerResolver), its kind, code and discounts and its
 * company's, so whatever is priced for it is what it sees logged in. Undefined for an unknown account.
 */
export async function clientAccountCaller(db: Db, clientAccountId: number): Promise<Caller | undefined> {
  const row = await db
    .selectFrom('client_account')
    .leftJoin('company', 'company.id', 'client_account.company_id')
    .select([
      'client_account.code',
      'client_account.type',
      'client_account.discount_percent as client_discount',
      'company.id as company_id',
      'company.discount_percent as company_discount',
    ])
    .where('client_account.id', '=', clientAccountId)
    .executeTakeFirst();
  if (!row) return undefined;
  const identity = { role: row.type, clientCode: row.code, clientAccountId };
  return clientCaller(identity, {
    client_discount: row.client_discount,
    company_id: row.company_id === null ? null : Number(row.company_id),
    company_discount: row.company_discount,
  });
}

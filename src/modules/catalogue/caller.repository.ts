import type { DatabaseHandle, Db } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';

export interface CallerDiscounts {
  client_discount: number;
  company_id: number | null;
  company_discount: number | null;
}

/** A client account's row with its discount and its company's (CallerDiscounts), for more columns to be added. */
export function accountWithDiscounts(db: Db, clientAccountId: number) {
  return db
    .selectFrom('client_account')
    .leftJoin('company', 'company.id', 'client_account.company_id')
    .select([
      'client_account.discount_percent as client_discount',
      'company.id as company_id',
      'company.discount_percent as company_discount',
    ])
    .where('client_account.id', '=', clientAccountId);
}

/** A client account's discount and its company's, read with a query prepared once (every logged-in catalogue read asks). */
export function callerDiscountsReader(database: DatabaseHandle): (clientAccountId: number) => Promise<CallerDiscounts | undefined> {
  const discounts = preparedQuery(database, accountWithDiscounts);
  return async (clientAccountId) => (await discounts(clientAccountId))[0];
}

import { sql } from 'kysely';
import type { Db } from './database.js';
import { isPostgres } from './row-lock.js';

/**
 * The `application_name` of a PostgreSQL transaction that writes nothing the data export reads (its
 * collections' tables: product, client_account, sales_history, session_action, shop, and what their
 * items join) and stamps nothing with a time taken before it commits. The export's cut waits for every
 * other open transaction (data-export's `settled-cut.ts`), since a row stamped when its writer started
 * shows only when it commits; one of these is left out, so a long one (a category listing rebuild, a
 * search index rebuild) does not hold back the windows that end meanwhile. An operator's own long
 * session may set it too, only under the same condition (docs/deployment.md).
 */
export const WRITES_NOTHING_EXPORTED = 'storefront-writes-nothing-exported';

/**
 * Marks the open transaction `trx` as one that writes nothing exported (WRITES_NOTHING_EXPORTED), for
 * itself only (`set_config(..., true)`: the connection's name is back when it ends). Run it first, so
 * the transaction is marked before it waits on a lock. Only where no write of an exported table (a
 * trigger's included) can ever happen in the transaction: one that does, left out of the cut, can put
 * a row in a window already answered. Nothing on SQLite, where the cut cannot see other transactions.
 */
export async function markWritesNothingExported(trx: Db): Promise<void> {
  if (!trx.isTransaction) throw new Error('markWritesNothingExported marks a transaction: call it inside one');
  if (isPostgres(trx)) await sql`select set_config('application_name', ${WRITES_NOTHING_EXPORTED}, true)`.execute(trx);
}

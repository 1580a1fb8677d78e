import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import { rebuildBoughtProducts } from './order-history.repository.js';

export const ORDERS_USAGE = `  orders rebuild-bought-products      build the purchase histories (GET /bought-product) again from the
                                      orders: once after a release that added them, when processes of the
                                      build before it moved orders meanwhile (docs/deployment.md)`;

/** `storefront orders ...`: what operators repair in the orders' kept summaries. */
export async function ordersCommand(db: Kysely<Database>, args: string[], print: (line: string) => void): Promise<void> {
  if (args.length !== 1 || args[0] !== 'rebuild-bought-products') throw new CliUsageError(`unknown orders command "${args.join(' ')}"`);
  const rows = await db.transaction().execute((trx) => rebuildBoughtProducts(trx));
  print(`Purchase histories rebuilt: ${rows} products bought by clients`);
}

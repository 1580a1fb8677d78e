import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import {
  campaignRows,
  hasCampaign,
  hasCampaignPrices,
  inStore,
  PRODUCT_COLUMNS,
  toLines,
  type BasketLine,
  type LineRow,
} from './basket-lines.repository.js';
import { normalise, type BasketRow } from './basket.repository.js';

// The read path's basket and its lines in one statement: the owner's basket left-joined to its
// lines and their products (a basket without lines is one row of nulls on the line side). Each
// statement outside a transaction is a read transaction of its own on SQLite (its locks are
// system calls), so GET /basket, its totals and the delivery methods read with one statement
// what took two (the basket, then its lines); the campaign prices follow only when a line's
// product has some, as on every other path (basket-lines.repository.ts).

type BasketWithLineRow = BasketRow & { [K in keyof LineRow]: LineRow[K] | null };

const basketWithLines = (db: Kysely<Database>, storeCode: string) =>
  db
    .selectFrom('basket')
    .leftJoin('basket_line as bl', 'bl.basket_id', 'basket.id')
    .leftJoin('product as p', 'p.id', 'bl.product_id')
    .selectAll('basket')
    .select(PRODUCT_COLUMNS)
    .select([inStore(storeCode), hasCampaignPrices, 'bl.quantity', 'bl.seen_price_cents', 'bl.added_at'])
    .orderBy('bl.added_at')
    .orderBy('bl.product_id');

/** The owner's basket with its lines (in the order they were added), compiled once; outside transactions only. */
export function preparedBasketWithLines(handle: DatabaseHandle) {
  const guest = preparedQuery(handle, (db, tokenHash: string, storeCode: string, changedSince: number) =>
    basketWithLines(db, storeCode)
      .where('basket.token_hash', '=', tokenHash)
      .where('basket.store_code', '=', storeCode)
      .where('basket.updated_at', '>=', changedSince),
  );
  const client = preparedQuery(handle, (db, clientAccountId: number, storeCode: string) =>
    basketWithLines(db, storeCode).where('basket.client_account_id', '=', clientAccountId).where('basket.store_code', '=', storeCode),
  );
  const campaigns = preparedQuery(handle, (db, basketId: number, storeCode: string) => campaignRows(db, basketId, storeCode));

  async function split(rows: BasketWithLineRow[], storeCode: string): Promise<{ basket: BasketRow | undefined; lines: BasketLine[] }> {
    const first = rows[0];
    if (first === undefined) return { basket: undefined, lines: [] };
    const basket = normalise(first);
    const lineRows = (first.product_id === null ? [] : rows) as LineRow[];
    const priced = lineRows.some(hasCampaign) ? await campaigns(basket.id, storeCode) : [];
    return { basket, lines: toLines(basket.id, lineRows, priced) };
  }

  return {
    guest: async (tokenHash: string, storeCode: string, changedSince: number) =>
      split((await guest(tokenHash, storeCode, changedSince)) as BasketWithLineRow[], storeCode),
    client: async (clientAccountId: number, storeCode: string) =>
      split((await client(clientAccountId, storeCode)) as BasketWithLineRow[], storeCode),
  };
}

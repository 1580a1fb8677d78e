import type { DatabaseHandle, Db } from '../../../db/database.js';
import { preparedQuery } from '../../../db/prepared.js';

// A store's whole list (GET /product without a filter) in its default order and its total, read from
// store_listing (migration 2026_12_09_1010) instead of sorted and counted over product per request.
// Triggers keep it exact when products or their stores change; nothing makes it stale. The total is a
// count over the (store, audience) range of its primary key: no kept total that every writer would share.

export interface StoreListing {
  /** The total of the store's list for the audience. */
  count(storeCode: string, audience: 'R' | 'B'): Promise<number>;
  /** Ids of one page in the default order (newest first, unknown dates last, then id descending). */
  page(storeCode: string, audience: 'R' | 'B', offset: number, limit: number): Promise<number[]>;
}

/** The count over the (store, audience) range of store_listing's key: the list's total. */
const totalQuery = (db: Db, storeCode: string, audience: 'R' | 'B') =>
  db
    .selectFrom('store_listing')
    .select((eb) => eb.fn.countAll().as('products'))
    .where('store_code', '=', storeCode)
    .where('audience', '=', audience);

export function storeListingReader(database: DatabaseHandle): StoreListing {
  const counted = preparedQuery(database, totalQuery);
  const paged = preparedQuery(database, (db, storeCode: string, audience: 'R' | 'B', limit: number, offset: number) =>
    db
      .selectFrom('store_listing')
      .select('product_id')
      .where('store_code', '=', storeCode)
      .where('audience', '=', audience)
      .orderBy('newest_key', 'desc')
      .orderBy('product_id', 'desc')
      .limit(limit)
      .offset(offset),
  );
  return {
    async count(storeCode, audience) {
      const [row] = await counted(storeCode, audience);
      return Number(row?.products ?? 0);
    },
    async page(storeCode, audience, offset, limit) {
      const rows = await paged(storeCode, audience, limit, offset);
      return rows.map((row) => Number(row.product_id));
    },
  };
}

/** The same total through `db` (a search's reads, which run within the request's time budget). */
export async function countStoreListing(db: Db, storeCode: string, audience: 'R' | 'B'): Promise<number> {
  const row = await totalQuery(db, storeCode, audience).executeTakeFirst();
  return Number(row?.products ?? 0);
}

import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../http/paging.js';

// All of the downloads module's SQL. Entitlements are the orders module's rows (order_entitlement);
// this module only reads them, with the order's store, and keeps its own counts beside them.

export interface DownloadRow {
  orderId: number;
  orderCode: string;
  productId: number;
  productCode: string;
  title: string;
  fileId: number;
  format: string;
  contentType: string;
  size: number;
  used: number;
  entitledAt: number;
}

const number = (value: number | string | bigint) => Number(value);

/** The client's entitled files in the store: one row per entitlement and format, newest entitlement first. */
export async function downloadPage(
  db: Db,
  owner: { clientAccountId: number; storeCode: string },
  page: PageRequest,
): Promise<{ rows: DownloadRow[]; total: number }> {
  const base = db
    .selectFrom('order_entitlement as e')
    .innerJoin('customer_order as o', 'o.id', 'e.order_id')
    .innerJoin('product_file as f', 'f.product_id', 'e.product_id')
    .where('e.client_account_id', '=', owner.clientAccountId)
    .where('o.store_code', '=', owner.storeCode);
  const [rows, total] = await Promise.all([
    base
      .innerJoin('product as p', 'p.id', 'e.product_id')
      .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'e.order_id').onRef('c.product_id', '=', 'e.product_id'))
      .select([
        'e.order_id',
        'o.code as order_code',
        'e.product_id',
        'p.code as product_code',
        'p.name',
        'f.id as file_id',
        'f.format',
        'f.content_type',
        'f.size_bytes',
        'c.used',
        'e.created_at',
      ])
      .orderBy('e.created_at', 'desc')
      .orderBy('e.order_id', 'desc')
      .orderBy('f.id')
      .limit(page.perPage)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((row) => ({
      orderId: number(row.order_id),
      orderCode: row.order_code ?? '',
      productId: number(row.product_id),
      productCode: row.product_code,
      title: row.name,
      fileId: number(row.file_id),
      format: row.format,
      contentType: row.content_type,
      size: number(row.size_bytes),
      used: row.used === null ? 0 : number(row.used),
      entitledAt: number(row.created_at),
    })),
    total: number(total.total),
  };
}

export interface EntitledFile {
  orderId: number;
  productId: number;
  fileId: number;
  storageKey: string;
  contentType: string;
  size: number;
  filename: string;
  used: number;
}

/** The file `fileId` under the client's entitlement of order `orderId` (any store when storeCode is undefined). */
export async function entitledFile(
  db: Db,
  entitlement: { orderId: number; fileId: number; clientAccountId: number; storeCode?: string },
): Promise<EntitledFile | undefined> {
  let query = db
    .selectFrom('product_file as f')
    .innerJoin('order_entitlement as e', 'e.product_id', 'f.product_id')
    .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'e.order_id').onRef('c.product_id', '=', 'e.product_id'))
    .select(['e.order_id', 'e.product_id', 'f.id', 'f.storage_key', 'f.content_type', 'f.size_bytes', 'f.filename', 'c.used'])
    .where('f.id', '=', entitlement.fileId)
    .where('e.order_id', '=', entitlement.orderId)
    .where('e.client_account_id', '=', entitlement.clientAccountId);
  if (entitlement.storeCode !== undefined) {
    const storeCode = entitlement.storeCode;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('customer_order as o')
          .select(sql.lit(1).as('one'))
          .whereRef('o.id', '=', 'e.order_id')
          .where('o.store_code', '=', storeCode),
      ),
    );
  }
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  return {
    orderId: number(row.order_id),
    productId: number(row.product_id),
    fileId: number(row.id),
    storageKey: row.storage_key,
    contentType: row.content_type,
    size: number(row.size_bytes),
    filename: row.filename,
    used: row.used === null ? 0 : number(row.used),
  };
}

/** Records that a link served its first request; false when it already had (a later request of the same link). */
export async function markLinkUsed(
  db: Db,
  link: { linkId: string; orderId: number; productId: number; expiresAt: number },
): Promise<boolean> {
  const inserted = await db
    .insertInto('download_link_use')
    .values({ link_id: link.linkId, order_id: link.orderId, product_id: link.productId, expires_at: link.expiresAt })
    .onConflict((oc) => oc.column('link_id').doNothing())
    .returning('link_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Counts one download of the entitlement unless it has used `limit` already: one conditional
 * upsert, so concurrent downloads cannot all pass a check made before any of them was counted.
 * Answers the new count, or undefined when the limit was reached.
 */
export async function countDownload(
  db: Db,
  entitlement: { orderId: number; productId: number },
  limit: number,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .insertInto('download_count')
    .values({ order_id: entitlement.orderId, product_id: entitlement.productId, used: 1, updated_at: now })
    .onConflict((oc) =>
      oc
        .columns(['order_id', 'product_id'])
        .doUpdateSet({ used: sql<number>`download_count.used + 1`, updated_at: now })
        .where('download_count.used', '<', limit),
    )
    .returning('used')
    .executeTakeFirst();
  return row === undefined ? undefined : number(row.used);
}

/** Links whose expiry has passed need no record of their use. */
export async function pruneUsedLinks(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('download_link_use').where('expires_at', '<', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface ProductFileInput {
  productId: number;
  format: string;
  storageKey: string;
  contentType: string;
  size: number;
  filename: string;
}

/** The product's id by its code, or undefined. */
export async function productIdByCode(db: Db, code: string): Promise<number | undefined> {
  const row = await db.selectFrom('product').select('id').where('code', '=', code).executeTakeFirst();
  return row === undefined ? undefined : number(row.id);
}

/** Adds or replaces the product's file of that format; answers its id and the storage key it replaced, if any. */
export async function saveProductFile(db: Db, file: ProductFileInput, now: number): Promise<{ id: number; replacedKey?: string }> {
  const previous = await db
    .selectFrom('product_file')
    .select('storage_key')
    .where('product_id', '=', file.productId)
    .where('format', '=', file.format)
    .executeTakeFirst();
  const values = {
    storage_key: file.storageKey,
    content_type: file.contentType,
    size_bytes: file.size,
    filename: file.filename,
    updated_at: now,
  };
  const row = await db
    .insertInto('product_file')
    .values({ ...values, product_id: file.productId, format: file.format, created_at: now })
    .onConflict((oc) => oc.columns(['product_id', 'format']).doUpdateSet(values))
    .returning('id')
    .executeTakeFirstOrThrow();
  const replacedKey = previous && previous.storage_key !== file.storageKey ? previous.storage_key : undefined;
  return { id: number(row.id), ...(replacedKey ? { replacedKey } : {}) };
}

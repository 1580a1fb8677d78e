import { sql } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../http/paging.js';
import { accessibleTakes } from '../subscriptions/index.js';
import type { Grant } from './download-link.js';

// All of the downloads module's SQL. Entitlements are the orders module's rows (order_entitlement),
// read with the order's store; what subscriptions give comes from the subscriptions module's
// accessibleTakes (only the takes that give access now). This module keeps its own counts beside
// them: per purchase (order, product) and per take.

export interface DownloadRow {
  /** The purchase's order, or null for a subscription take. */
  orderId: number | null;
  takeId: number | null;
  /** '' for a subscription take. */
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
const nullableNumber = (value: number | string | bigint | null) => (value === null ? null : Number(value));

interface GrantRow {
  order_id: number | null;
  take_id: number | null;
  order_code: string | null;
  product_id: number;
  granted_at: number;
}

/** The client's purchases in the store and the subscription takes that give access now, as one derived table. */
function grantsOf(db: Db, owner: { clientAccountId: number; storeCode: string }, now: number) {
  const purchases = db
    .selectFrom('order_entitlement as e')
    .innerJoin('customer_order as o', 'o.id', 'e.order_id')
    .where('e.client_account_id', '=', owner.clientAccountId)
    .where('o.store_code', '=', owner.storeCode)
    .select(['e.order_id as order_id', sql<null>`null`.as('take_id'), 'o.code as order_code', 'e.product_id', 'e.created_at as granted_at'])
    .$castTo<GrantRow>();
  const takes = db
    .selectFrom(accessibleTakes(db, owner, now).as('tk'))
    .select([sql<null>`null`.as('order_id'), 'tk.take_id', sql<null>`null`.as('order_code'), 'tk.product_id', 'tk.taken_at as granted_at'])
    .$castTo<GrantRow>();
  return purchases.unionAll(takes).as('g');
}

/** The client's entitled files in the store: one row per purchase or take and format, newest first. */
export async function downloadPage(
  db: Db,
  owner: { clientAccountId: number; storeCode: string },
  page: PageRequest,
  now: number,
): Promise<{ rows: DownloadRow[]; total: number }> {
  const base = db.selectFrom(grantsOf(db, owner, now)).innerJoin('product_file as f', 'f.product_id', 'g.product_id');
  const [rows, total] = await Promise.all([
    base
      .innerJoin('product as p', 'p.id', 'g.product_id')
      .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'g.order_id').onRef('c.product_id', '=', 'g.product_id'))
      .leftJoin('download_take_count as tc', 'tc.take_id', 'g.take_id')
      .select([
        'g.order_id',
        'g.take_id',
        'g.order_code',
        'g.product_id',
        'p.code as product_code',
        'p.name',
        'f.id as file_id',
        'f.format',
        'f.content_type',
        'f.size_bytes',
        'c.used',
        'tc.used as take_used',
        'g.granted_at',
      ])
      .orderBy('g.granted_at', 'desc')
      .orderBy(sql`coalesce(g.order_id, 0)`, 'desc')
      .orderBy(sql`coalesce(g.take_id, 0)`, 'desc')
      .orderBy('f.id')
      .limit(page.perPage)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((row) => ({
      orderId: nullableNumber(row.order_id),
      takeId: nullableNumber(row.take_id),
      orderCode: row.order_code ?? '',
      productId: number(row.product_id),
      productCode: row.product_code,
      title: row.name,
      fileId: number(row.file_id),
      format: row.format,
      contentType: row.content_type,
      size: number(row.size_bytes),
      used: number(row.used ?? row.take_used ?? 0),
      entitledAt: number(row.granted_at),
    })),
    total: number(total.total),
  };
}

export type EntitledFile = Grant & {
  productId: number;
  fileId: number;
  storageKey: string;
  contentType: string;
  size: number;
  filename: string;
  used: number;
};

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

/**
 * The file `fileId` under the client's subscription take `takeId`, while the take gives access
 * (any store when storeCode is undefined).
 */
export async function takenFile(
  db: Db,
  take: { takeId: number; fileId: number; clientAccountId: number; storeCode?: string },
  now: number,
): Promise<EntitledFile | undefined> {
  const owner = {
    clientAccountId: take.clientAccountId,
    takeId: take.takeId,
    ...(take.storeCode === undefined ? {} : { storeCode: take.storeCode }),
  };
  const row = await db
    .selectFrom('product_file as f')
    .innerJoin(accessibleTakes(db, owner, now).as('tk'), 'tk.product_id', 'f.product_id')
    .leftJoin('download_take_count as c', 'c.take_id', 'tk.take_id')
    .select(['tk.take_id', 'tk.product_id', 'f.id', 'f.storage_key', 'f.content_type', 'f.size_bytes', 'f.filename', 'c.used'])
    .where('f.id', '=', take.fileId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    takeId: number(row.take_id),
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
export async function markLinkUsed(db: Db, link: Grant & { linkId: string; productId: number; expiresAt: number }): Promise<boolean> {
  const inserted = await db
    .insertInto('download_link_use')
    .values({
      link_id: link.linkId,
      order_id: link.orderId ?? 0,
      take_id: link.takeId ?? null,
      product_id: link.productId,
      expires_at: link.expiresAt,
    })
    .onConflict((oc) => oc.column('link_id').doNothing())
    .returning('link_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Counts one download of the purchase or take unless it has used `limit` already: one conditional
 * upsert, so concurrent downloads cannot all pass a check made before any of them was counted.
 * Answers the new count, or undefined when the limit was reached.
 */
export async function countDownload(
  db: Db,
  entitlement: Grant & { productId: number },
  limit: number,
  now: number,
): Promise<number | undefined> {
  const row =
    entitlement.takeId !== undefined
      ? await db
          .insertInto('download_take_count')
          .values({ take_id: entitlement.takeId, used: 1, updated_at: now })
          .onConflict((oc) =>
            oc
              .column('take_id')
              .doUpdateSet({ used: sql<number>`download_take_count.used + 1`, updated_at: now })
              .where('download_take_count.used', '<', limit),
          )
          .returning('used')
          .executeTakeFirst()
      : await db
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
  return deleteInBatches(db, 'download_link_use', {
    key: 'link_id',
    where: (eb) => eb('expires_at', '<', now),
    orderBy: 'expires_at',
  });
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

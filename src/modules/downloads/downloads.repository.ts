import { sql } from 'kysely';
import { isErasedEmail } from '../../infra/personal-data.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import { isPostgres, lockedOnPostgres } from '../../db/row-lock.js';
import type { PageRequest } from '../../http/paging.js';
import { accessibleTakes, subscriptionGivingAccess } from '../subscriptions/index.js';
import type { Grant } from './download-link.js';

// All of the downloads module's SQL. Entitlements are the orders module's rows (order_entitlement),
// read with the order's store; what subscriptions give comes from the subscriptions module's
// accessibleTakes (only the takes that give access now). The list reads download_item, one row per
// listed file that triggers keep from both (migration 2026_11_28_0600), and asks subscriptions
// whether a take's subscription gives access now. This module keeps its own counts beside them:
// per purchase (order, product) and per take.

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
/** An item's order or take id; 0 (the other kind's) is null. */
const grantId = (value: number | string | bigint) => (Number(value) === 0 ? null : Number(value));

/**
 * The client's listed items in the store (download_item, kept by triggers): its purchases, and its
 * held takes whose subscription gives access now (subscriptions' subscriptionGivingAccess).
 */
function itemsOf(db: Db, owner: { clientAccountId: number; storeCode: string }, now: number) {
  return db
    .selectFrom('download_item as i')
    .where('i.client_account_id', '=', owner.clientAccountId)
    .where('i.store_code', '=', owner.storeCode)
    .where((eb) => eb.or([eb('i.take_id', '=', 0), eb.exists(subscriptionGivingAccess(db, eb.ref('i.subscription_id'), now))]));
}

/**
 * Of these bought products, the ones with a file the client may download now in the store: a
 * purchase's item of a file not removed, as GET /download lists them. An e-book bought before its
 * publisher delivered the file has none yet.
 */
export async function productsWithFiles(
  db: Db,
  owner: { clientAccountId: number; storeCode: string },
  productIds: readonly number[],
): Promise<Set<number>> {
  if (productIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('download_item as i')
    .innerJoin('product_file as f', 'f.id', 'i.file_id')
    .select('i.product_id')
    .distinct()
    .where('i.client_account_id', '=', owner.clientAccountId)
    .where('i.store_code', '=', owner.storeCode)
    .where('i.take_id', '=', 0)
    .where('i.product_id', 'in', [...productIds])
    .execute();
  return new Set(rows.map((row) => Number(row.product_id)));
}

/**
 * The client's entitled files in the store: one row per purchase or take and format, newest first
 * (then the order, the take, the file). A page is a range of download_item_list_idx, in its order,
 * and the total a count over the same range; both read each item's file by key, so the items of a
 * removed file, until the job that deletes them ran, are neither listed nor counted.
 */
export async function downloadPage(
  db: Db,
  owner: { clientAccountId: number; storeCode: string },
  page: PageRequest,
  now: number,
): Promise<{ rows: DownloadRow[]; total: number }> {
  const [rows, total] = await Promise.all([
    itemsOf(db, owner, now)
      .innerJoin('product_file as f', 'f.id', 'i.file_id')
      .innerJoin('product as p', 'p.id', 'i.product_id')
      // A take's order_id is 0 and a purchase's take_id 0: neither matches a row.
      .leftJoin('customer_order as o', 'o.id', 'i.order_id')
      .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'i.order_id').onRef('c.product_id', '=', 'i.product_id'))
      .leftJoin('download_take_count as tc', 'tc.take_id', 'i.take_id')
      .select([
        'i.order_id',
        'i.take_id',
        'o.code as order_code',
        'i.product_id',
        ...LISTED_FILE_COLUMNS,
        'c.used',
        'tc.used as take_used',
        'i.granted_at',
      ])
      .orderBy('i.granted_at', 'desc')
      .orderBy('i.order_id', 'desc')
      .orderBy('i.take_id', 'desc')
      .orderBy('i.file_id')
      .limit(page.perPage)
      .offset(page.offset)
      .execute(),
    // With its file, as the page reads it: a removed file's items wait for their job (download-items.jobs.ts).
    itemsOf(db, owner, now)
      .innerJoin('product_file as f', 'f.id', 'i.file_id')
      .select((eb) => eb.fn.countAll<number | string>().as('total'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((row) => ({
      orderId: grantId(row.order_id),
      takeId: grantId(row.take_id),
      orderCode: row.order_code ?? '',
      ...listedFile(row),
      used: number(row.used ?? row.take_used ?? 0),
      entitledAt: number(row.granted_at),
    })),
    total: number(total.total),
  };
}

type Id = number | string | bigint;

/** What both lists select of an item's product (p) and file (f): listedFile reads it. */
const LISTED_FILE_COLUMNS = ['p.code as product_code', 'p.name', 'f.id as file_id', 'f.format', 'f.content_type', 'f.size_bytes'] as const;

/** The product and file of a listed item, as both lists read them. */
function listedFile(row: {
  product_id: Id;
  product_code: string;
  name: string;
  file_id: Id;
  format: string;
  content_type: string;
  size_bytes: Id;
}) {
  return {
    productId: number(row.product_id),
    productCode: row.product_code,
    title: row.name,
    fileId: number(row.file_id),
    format: row.format,
    contentType: row.content_type,
    size: number(row.size_bytes),
  };
}

/**
 * One order's files to download: a row per entitled product and format, by product and file. Read
 * from the order's entitlements, not from download_item (which keeps clients' lists only): a guest's
 * order is listed too. An order's lines bound it.
 */
export async function orderFilePage(db: Db, orderId: number, page: PageRequest): Promise<{ rows: DownloadRow[]; total: number }> {
  const files = db
    .selectFrom('order_entitlement as e')
    .innerJoin('product_file as f', 'f.product_id', 'e.product_id')
    .where('e.order_id', '=', orderId);
  const [rows, total] = await Promise.all([
    files
      .innerJoin('customer_order as o', 'o.id', 'e.order_id')
      .innerJoin('product as p', 'p.id', 'e.product_id')
      .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'e.order_id').onRef('c.product_id', '=', 'e.product_id'))
      .select(['o.code', 'e.product_id', ...LISTED_FILE_COLUMNS, 'c.used', 'e.created_at'])
      .orderBy('e.product_id')
      .orderBy('f.id')
      .limit(page.perPage)
      .offset(page.offset)
      .execute(),
    files.select((eb) => eb.fn.countAll<number | string>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return {
    rows: rows.map((row) => ({
      orderId,
      takeId: null,
      orderCode: row.code ?? '',
      ...listedFile(row),
      used: number(row.used ?? 0),
      entitledAt: number(row.created_at),
    })),
    total: number(total.total),
  };
}

export type EntitledFile = Grant & {
  /** A guest order's buyer erased since (the order's billing email is the erasure's placeholder): its files ended. */
  buyerErased?: boolean;
  productId: number;
  fileId: number;
  storageKey: string;
  contentType: string;
  size: number;
  filename: string;
  used: number;
};

/**
 * A guest order's row in share mode until the transaction ends (PostgreSQL): the erasure's update of it
 * waits, and a download waits for an erasure that updated it first. SQLite's write transactions are serial.
 */
export async function lockGuestOrder(db: Db, orderId: number): Promise<void> {
  if (!isPostgres(db)) return;
  await db.selectFrom('customer_order').select('id').where('id', '=', orderId).forShare().execute();
}

/**
 * Whether the order's downloads were bought for a receiver whose data has not been erased (the orders module's
 * order_gift_download), its row in share mode until the transaction ends (PostgreSQL), so that the erasure of the
 * receiver either comes first and is read here, or waits for the download's count.
 */
export async function giftReceiverKept(db: Db, orderId: number): Promise<boolean> {
  const query = db.selectFrom('order_gift_download').select('receiver_email').where('order_id', '=', orderId);
  const row = await (isPostgres(db) ? query.forShare() : query).executeTakeFirst();
  return row !== undefined && !isErasedEmail(row.receiver_email);
}

/**
 * The file `fileId` under the client's entitlement of order `orderId` (any store when storeCode is undefined);
 * a null client is a guest's order, and `'receiver'` whoever's order it is (the receiver of one bought for them).
 */
export async function entitledFile(
  db: Db,
  entitlement: { orderId: number; fileId: number; clientAccountId: number | null | 'receiver'; storeCode?: string },
): Promise<EntitledFile | undefined> {
  let query = db
    .selectFrom('product_file as f')
    .innerJoin('order_entitlement as e', 'e.product_id', 'f.product_id')
    .innerJoin('customer_order as o', 'o.id', 'e.order_id')
    .leftJoin('download_count as c', (join) => join.onRef('c.order_id', '=', 'e.order_id').onRef('c.product_id', '=', 'e.product_id'))
    .select([
      'e.order_id',
      'e.product_id',
      'f.id',
      'f.storage_key',
      'f.content_type',
      'f.size_bytes',
      'f.filename',
      'c.used',
      'o.billing_email',
    ])
    .where('f.id', '=', entitlement.fileId)
    .where('e.order_id', '=', entitlement.orderId);
  const { clientAccountId } = entitlement;
  if (clientAccountId !== 'receiver') query = query.where('e.client_account_id', clientAccountId === null ? 'is' : '=', clientAccountId);
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
    buyerErased: clientAccountId === null && isErasedEmail(row.billing_email),
    // The receiver's right: a link to it is a receiver's link (its grant says so).
    ...(clientAccountId === 'receiver' ? { gift: true } : {}),
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

/**
 * Adds `bytes` to what the link has served, unless that would pass `budget`: the first request of a
 * link records it (`first`: its download is to be counted), a later one adds to it by one conditional
 * update (`again`), and one past the budget changes nothing (`spent`). Concurrent requests of one link
 * cannot pass the budget together: PostgreSQL's second insert waits for the first's commit and then
 * updates, and an update re-reads the row another committed before applying its condition.
 */
export async function spendLinkBytes(
  db: Db,
  link: Grant & { linkId: string; productId: number; expiresAt: number },
  bytes: number,
  budget: number,
): Promise<'first' | 'again' | 'spent'> {
  if (bytes > budget) return 'spent';
  const inserted = await db
    .insertInto('download_link_use')
    .values({
      link_id: link.linkId,
      order_id: link.orderId ?? 0,
      take_id: link.takeId ?? null,
      product_id: link.productId,
      expires_at: link.expiresAt,
      bytes_served: bytes,
    })
    .onConflict((oc) => oc.column('link_id').doNothing())
    .returning('link_id')
    .executeTakeFirst();
  if (inserted !== undefined) return 'first';
  const updated = await db
    .updateTable('download_link_use')
    .set({ bytes_served: sql<number>`bytes_served + ${bytes}` })
    .where('link_id', '=', link.linkId)
    .where(sql<boolean>`bytes_served + ${bytes} <= ${budget}`)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0 ? 'again' : 'spent';
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

/**
 * Adds or replaces the product's file of that format; answers its id, whether it is a new format of the
 * product (`created`) and the storage key it replaced, if any. The row is read locked (PostgreSQL), so
 * of two uploads of one format at once the second replaces the first's key and answers it to be
 * deleted: read unlocked, both read the key before them, and the first's bytes stayed in the file store
 * with no row naming them. Two first uploads: the second's insert finds the first's row and replaces it.
 */
export async function saveProductFile(
  db: Db,
  file: ProductFileInput,
  now: number,
): Promise<{ id: number; created: boolean; replacedKey?: string }> {
  const values = {
    storage_key: file.storageKey,
    content_type: file.contentType,
    size_bytes: file.size,
    filename: file.filename,
    updated_at: now,
  };
  for (;;) {
    // A format removed meanwhile is no longer there under the lock: a new format again.
    const previous = await lockedOnPostgres(
      db,
      db
        .selectFrom('product_file')
        .select(['id', 'storage_key'])
        .where('product_id', '=', file.productId)
        .where('format', '=', file.format),
    ).executeTakeFirst();
    if (previous) {
      await db.updateTable('product_file').set(values).where('id', '=', previous.id).execute();
      const replacedKey = previous.storage_key !== file.storageKey ? previous.storage_key : undefined;
      return { id: number(previous.id), created: false, ...(replacedKey ? { replacedKey } : {}) };
    }
    const row = await db
      .insertInto('product_file')
      .values({ ...values, product_id: file.productId, format: file.format, created_at: now })
      .onConflict((oc) => oc.columns(['product_id', 'format']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (row) return { id: number(row.id), created: true };
    // Another upload of the format committed its row after the read: read it again, locked, and replace it.
  }
}

/** Removes the product's file of that format; answers its id and storage key, or undefined when it has none. */
export async function deleteProductFile(
  db: Db,
  file: { productId: number; format: string },
): Promise<{ id: number; storageKey: string } | undefined> {
  const row = await db
    .deleteFrom('product_file')
    .where('product_id', '=', file.productId)
    .where('format', '=', file.format)
    .returning(['id', 'storage_key'])
    .executeTakeFirst();
  return row === undefined ? undefined : { id: number(row.id), storageKey: row.storage_key };
}

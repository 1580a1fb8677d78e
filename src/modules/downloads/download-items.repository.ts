import { PostgresAdapter, sql } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';

// The SQL of the job that gives a new file's item (download_item) to every holder of its product:
// pages of purchases (order_entitlement by order_id) and held takes (subscription_take by id) in key
// order (migration 2026_11_30_0410's indexes), each page's items one statement of at most a page of
// rows, an item already there left as it is; and of the job that takes a removed file's items off
// the lists, in pages by download_item_file_idx.

/** pg_advisory_xact_lock's first key for a product's download items (migration 2026_11_28_0600). */
const LOCK_SPACE = 2_811_280;

const number = (value: number | string | bigint) => Number(value);

/** The product of the file, or undefined when the file is gone. */
export async function productOfFile(db: Db, fileId: number): Promise<number | undefined> {
  const row = await db.selectFrom('product_file').select('product_id').where('id', '=', fileId).executeTakeFirst();
  return row === undefined ? undefined : number(row.product_id);
}

/** The ids of the next `size` orders after `after` that hold the product, in order. */
export async function purchaseKeys(db: Db, productId: number, after: number, size: number): Promise<number[]> {
  const rows = await db
    .selectFrom('order_entitlement')
    .select('order_id')
    .where('product_id', '=', productId)
    .where('order_id', '>', after)
    .orderBy('order_id')
    .limit(size)
    .execute();
  return rows.map((row) => number(row.order_id));
}

/** The ids of the next `size` held takes of the product after `after`, in order. */
export async function takeKeys(db: Db, productId: number, after: number, size: number): Promise<number[]> {
  const rows = await db
    .selectFrom('subscription_take')
    .select('id')
    .where('product_id', '=', productId)
    .where('held_key', 'is not', null)
    .where('id', '>', after)
    .orderBy('id')
    .limit(size)
    .execute();
  return rows.map((row) => number(row.id));
}

/** Adds the file's item to the purchases of orders in (after, upto]; answers how many were new. */
export async function addPurchaseItems(db: Db, file: { fileId: number; productId: number }, after: number, upto: number): Promise<number> {
  const result = await db
    .insertInto('download_item')
    .columns(['order_id', 'take_id', 'file_id', 'product_id', 'client_account_id', 'store_code', 'granted_at', 'subscription_id'])
    .expression((eb) =>
      eb
        .selectFrom('order_entitlement as e')
        .innerJoin('customer_order as o', 'o.id', 'e.order_id')
        // The file as it is now: one removed since the job was queued gives nobody an item.
        .innerJoin('product_file as f', (join) => join.onRef('f.product_id', '=', 'e.product_id').on('f.id', '=', file.fileId))
        .select((s) => [
          'e.order_id',
          s.lit(0).as('take_id'),
          'f.id',
          'e.product_id',
          'e.client_account_id',
          'o.store_code',
          'e.created_at',
          s.val(null).as('subscription_id'),
        ])
        .where('e.product_id', '=', file.productId)
        .where('e.order_id', '>', after)
        .where('e.order_id', '<=', upto)
        .where('e.client_account_id', 'is not', null),
    )
    .onConflict((oc) => oc.columns(['order_id', 'take_id', 'file_id']).doNothing())
    .executeTakeFirst();
  return number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Adds the file's item to the product's held takes with ids in (after, upto]; answers how many were new. */
export async function addTakeItems(db: Db, file: { fileId: number; productId: number }, after: number, upto: number): Promise<number> {
  const result = await db
    .insertInto('download_item')
    .columns(['order_id', 'take_id', 'file_id', 'product_id', 'client_account_id', 'store_code', 'granted_at', 'subscription_id'])
    .expression((eb) =>
      eb
        .selectFrom('subscription_take as t')
        .innerJoin('product_file as f', (join) => join.onRef('f.product_id', '=', 't.product_id').on('f.id', '=', file.fileId))
        .select((s) => [
          s.lit(0).as('order_id'),
          't.id',
          'f.id as file_id',
          't.product_id',
          't.client_account_id',
          't.store_code',
          't.created_at',
          't.subscription_id',
        ])
        .where('t.product_id', '=', file.productId)
        .where('t.held_key', 'is not', null)
        .where('t.id', '>', after)
        .where('t.id', '<=', upto),
    )
    .onConflict((oc) => oc.columns(['order_id', 'take_id', 'file_id']).doNothing())
    .executeTakeFirst();
  return number(result.numInsertedOrUpdatedRows ?? 0);
}

/**
 * Takes the product's download-item lock shared for the rest of the transaction (PostgreSQL; SQLite
 * runs one writer at a time): a removal of one of its files (exclusive, in its delete trigger) then
 * either waits for the page or is seen by it.
 */
export async function lockProductItems(trx: Db, productId: number): Promise<void> {
  if (!(trx.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`select pg_advisory_xact_lock_shared(${LOCK_SPACE}, (${productId}::bigint % 2147483647)::int)`.execute(trx);
}

/** Deletes the items of a removed file, `batch` a statement; answers how many went. */
export function removeFileItems(db: Db, fileId: number, batch: number): Promise<number> {
  return deleteInBatches(db, 'download_item', {
    key: ['order_id', 'take_id', 'file_id'],
    where: (eb) => eb('file_id', '=', fileId),
    batchSize: batch,
  });
}

/** Whether a product_file row refers to the stored key (by product_file_storage_key_idx). */
export async function storageKeyInUse(db: Db, storageKey: string): Promise<boolean> {
  const row = await db.selectFrom('product_file').select('id').where('storage_key', '=', storageKey).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The highest job id committed (or written by this transaction), 0 when there is none. */
export async function lastJobId(db: Db): Promise<number> {
  const row = await db
    .selectFrom('job')
    .select((eb) => eb.fn.max('id').as('id'))
    .executeTakeFirst();
  return row?.id === null || row?.id === undefined ? 0 : number(row.id);
}

/**
 * Sets the times of the removal job the delete's trigger (migration 2026_11_30_1050) queued for the
 * file, in the deleting transaction, to `now`: the job, uncommitted, is seen by nobody else. It is the
 * one of `type` whose payload starts with the file's id, among the jobs after `afterJobId` (the last
 * id before the delete; the trigger's id comes from the sequence later), so a read of a few rows by
 * the primary key. Answers how many jobs it changed (1; 0 if no trigger queued one).
 */
export async function stampRemovalJob(trx: Db, job: { type: string; fileId: number; afterJobId: number }, now: number): Promise<number> {
  const result = await trx
    .updateTable('job')
    .set({ run_at: now, created_at: now, updated_at: now })
    .where('id', '>', job.afterJobId)
    .where('type', '=', job.type)
    .where('status', '=', 'pending')
    .where('payload', 'like', `{"fileId":${job.fileId},%`)
    .executeTakeFirst();
  return number(result.numUpdatedRows);
}

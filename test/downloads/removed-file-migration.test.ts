import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import * as queueRemovedFileItems from '../../src/db/migrations/2026_11_30_0850_queue_removed_file_items.js';
import * as removeDeletedFileBytes from '../../src/db/migrations/2026_11_30_1050_remove_deleted_file_bytes.js';
import { fileRemovalHandler } from '../../src/modules/downloads/index.js';
import { createProduct } from '../helpers/catalogue.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// Migration 0850: the delete of a product_file row queues the job that deletes its download items,
// whoever deletes it (here plain SQL, as an operator in psql). Up also queues the job of the items
// whose file a hand-written delete took before it, and down stops the trigger queueing.

let database: DatabaseHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ database, close } = await openMigratedScratch());
});
afterAll(async () => close());

async function fileWithItems(productId: number, format: string, holders: number): Promise<number> {
  const db = database.db;
  const now = Date.now();
  const { id } = await db
    .insertInto('product_file')
    .values({
      product_id: productId,
      format,
      storage_key: `products/${productId}/${format}`,
      content_type: 'application/pdf',
      size_bytes: 1,
      filename: 'a.pdf',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const fileId = Number(id);
  for (let order = 1; order <= holders; order += 1) {
    await db
      .insertInto('download_item')
      .values({
        order_id: fileId * 1000 + order,
        take_id: 0,
        file_id: fileId,
        product_id: productId,
        client_account_id: order,
        store_code: 'WEB',
        granted_at: now,
        subscription_id: null,
      })
      .execute();
  }
  return fileId;
}

const removalJobs = async () =>
  (
    await database.db
      .selectFrom('job')
      .select(['payload', 'status', 'attempts', 'max_attempts', 'run_at'])
      .where('type', '=', 'downloads.file-removal')
      .orderBy('id')
      .execute()
  ).map((job) => ({ ...job, payload: JSON.parse(job.payload) as unknown, run_at: Number(job.run_at) }));
const items = async (fileId: number) =>
  (await database.db.selectFrom('download_item').select('order_id').where('file_id', '=', fileId).execute()).length;
const deleteByHand = (fileId: number) => sql`delete from product_file where id = ${fileId}`.execute(database.db);

// Migration 1050 (first: the test of 0850 below leaves its trigger in place): the job names the
// row's stored key too, whatever characters a key written by hand holds; down names the file only.
describe(`migration 2026_11_30_1050_remove_deleted_file_bytes on ${engine}`, () => {
  it("queues the job with the row's stored key, and down without it", async () => {
    const db = database.db;
    const productId = await createProduct(db, { type: 'EBOOK', binding: 'PDF', deliveryTime: 'INSTANT_DOWNLOAD', price: 5 });
    const [epub, pdf] = [await fileWithItems(productId, 'EPUB', 1), await fileWithItems(productId, 'PDF', 1)];
    const odd = 'products/ä "x" \\ \u0007.epub';
    await db.updateTable('product_file').set({ storage_key: odd }).where('id', '=', epub).execute();
    const queued = async (act: () => Promise<unknown>) => {
      const before = (await removalJobs()).length;
      await act();
      return (await removalJobs()).slice(before).map((job) => job.payload);
    };
    expect(await queued(() => deleteByHand(epub))).toEqual([{ fileId: epub, storageKey: odd }]);
    await removeDeletedFileBytes.down(db);
    expect(await queued(() => deleteByHand(pdf))).toEqual([{ fileId: pdf }]);
    await removeDeletedFileBytes.up(db);
    const again = await fileWithItems(productId, 'MP3', 1);
    expect(await queued(() => deleteByHand(again))).toEqual([{ fileId: again, storageKey: `products/${productId}/MP3` }]);
    // Nothing left for the test below: its up queues a job for each file with items and no row.
    await db.deleteFrom('download_item').where('file_id', 'in', [epub, pdf, again]).execute();
    await db.deleteFrom('job').execute();
  });
});

describe(`migration 2026_11_30_0850_queue_removed_file_items on ${engine}`, () => {
  it('queues the removal job of a row deleted by hand, and up queues those of the files deleted before it', async () => {
    const db = database.db;
    const productId = await createProduct(db, { type: 'EBOOK', binding: 'PDF', deliveryTime: 'INSTANT_DOWNLOAD', price: 5 });
    const [kept, before, after] = [
      await fileWithItems(productId, 'EPUB', 2),
      await fileWithItems(productId, 'PDF', 3),
      await fileWithItems(productId, 'MP3', 2),
    ];

    // The schema before: a hand-written delete queues nothing, and leaves the items.
    await queueRemovedFileItems.down(db);
    await deleteByHand(before);
    expect(await removalJobs()).toEqual([]);

    const start = Date.now();
    await queueRemovedFileItems.up(db);
    const job = (fileId: number) => ({ payload: { fileId }, status: 'pending', attempts: 0, max_attempts: 10, run_at: expect.any(Number) });
    expect(await removalJobs()).toEqual([job(before)]);
    await deleteByHand(after);
    const jobs = await removalJobs();
    expect(jobs).toEqual([job(before), job(after)]);
    // Due at once, by the wall clock in Unix ms (the worker's).
    for (const queued of jobs) expect(Math.abs(queued.run_at - start)).toBeLessThan(60_000);

    // Each queued job, as the worker runs it (its payload parsed; this handler reads nothing of the context).
    // 0850's payload names no stored key: the job deletes the items only, and never asks for the store.
    const run = fileRemovalHandler({ db, batch: 2, fileStore: () => Promise.reject(new Error('0850 jobs name no stored file')) });
    expect(await Promise.all(jobs.map((queued) => run(queued.payload, {} as never)))).toEqual(['removed 3', 'removed 2']);
    expect([await items(before), await items(after), await items(kept)]).toEqual([0, 0, 2]);
  });
});

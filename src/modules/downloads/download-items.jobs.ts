import type { Db } from '../../db/database.js';
import { isStoreKey, type FileStore } from '../../infra/file-store/index.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import {
  addPurchaseItems,
  addTakeItems,
  lockProductItems,
  productOfFile,
  purchaseKeys,
  removeFileItems,
  storageKeyInUse,
  takeKeys,
} from './download-items.repository.js';

// A new file (format) of a product is an item of every holder's download list (download_item). A
// best seller has 100,000 holders: rather than one statement of that many rows in the upload's
// transaction, the upload queues this job, which adds the items in pages of holders by key, each
// page one statement of at most DOWNLOAD_ITEMS_BATCH rows in a transaction of its own. An item
// already there is left as it is, so a job run twice (a retry after a failure, a worker that lost its
// claim) adds nothing twice. A grant made meanwhile gets its item from its own trigger (migration
// 2026_11_30_0410 on PostgreSQL's lock). Until the job ran, the holders' lists lack the new format; a
// link to it (GET /download/{id}/link) works from the upload on, as it reads the grant itself.

export const DOWNLOAD_FILE_ITEMS_JOB = 'downloads.file-items';
const ATTEMPTS = 10;

/** Queues the items of a new file, in the caller's transaction (the file's). */
export function queueFileItems(trx: Db, fileId: number, now: number): Promise<number> {
  return enqueueJob(trx, { type: DOWNLOAD_FILE_ITEMS_JOB, payload: { fileId } }, { maxAttempts: ATTEMPTS, now });
}

export function fileItemsHandler(deps: { db: Db; batch: number }): JobHandler {
  const { db, batch } = deps;
  return async (job: { fileId: number }) => {
    const productId = await productOfFile(db, job.fileId);
    if (productId === undefined) return 'skipped';
    const file = { fileId: job.fileId, productId };
    let added = 0;
    for (const [keys, add] of [
      [purchaseKeys, addPurchaseItems],
      [takeKeys, addTakeItems],
    ] as const) {
      for (let after = 0; ;) {
        const page = await keys(db, productId, after, batch);
        if (page.length === 0) break;
        const upto = page[page.length - 1]!;
        // A page and a removal of the file do not cross (download-items.repository.ts, lockProductItems).
        added += await db.transaction().execute(async (trx) => {
          await lockProductItems(trx, productId);
          return add(trx, file, after, upto);
        });
        if (page.length < batch) break;
        after = upto;
      }
    }
    return `added ${added}`;
  };
}

// A removed file goes from its product_file row at once, in the removal's transaction: no link is
// made for it from then on and none is served, and the list and its count read an item with its
// file, so nobody sees its items. They are deleted by this job in pages of DOWNLOAD_ITEMS_BATCH, each
// page one statement in a transaction of its own, rather than all of them in the removal's. The job
// is queued by the delete's trigger (migrations 2026_11_30_0850 and 1050), in the deleting
// transaction, whoever deletes the row: removeProductFile, or an operator's `delete from
// product_file` by hand. File ids are never used again, so a new upload of the same format (a new
// row) is no item of this job's; a second run finds nothing to delete.
//
// Then the job deletes the file's stored bytes (the payload's storageKey, since migration 1050),
// unless another row still refers to them: a row deleted by hand left them in the store for good.
// removeProductFile has deleted them already, so there it deletes nothing. A job queued before 1050
// (`{"fileId":<id>}`, no key) deletes the items only: nothing names its bytes any more.
//
// The job's time (run_at) is the database's clock when the trigger wrote it, or the application's
// when removeProductFile set it (product-files.service.ts). The handler reads neither: it deletes
// what is there when it runs, and records no time.

export const DOWNLOAD_FILE_REMOVAL_JOB = 'downloads.file-removal';

export function fileRemovalHandler(deps: { db: Db; batch: number; fileStore: () => Promise<FileStore> }): JobHandler {
  const { db, batch } = deps;
  return async (job: { fileId: number; storageKey?: unknown }) => {
    // Never the case (ids are not used again), but a file that exists keeps its items.
    if ((await productOfFile(db, job.fileId)) !== undefined) return 'skipped';
    const removed = `removed ${await removeFileItems(db, job.fileId, batch)}`;
    if (typeof job.storageKey !== 'string') return removed;
    const stored = await deleteStoredFile({ db, fileStore: await deps.fileStore() }, job.storageKey);
    return `${removed}; stored file ${BYTES_RESULT[stored]}`;
  };
}

const BYTES_RESULT: Record<StoredFileRemoval, string> = {
  deleted: 'deleted',
  inUse: 'kept, another file row refers to it',
  notAStoreKey: 'left, its key is none the store takes',
};

/** What became of a removed file's stored bytes. */
export type StoredFileRemoval = 'deleted' | 'inUse' | 'notAStoreKey';

/**
 * Deletes the stored file under `storageKey` unless a product_file row still refers to it (a row
 * copied by hand, say: every upload writes a key of its own). Run after the removing delete has
 * committed, so the row removed is no longer counted. Deleting a file already gone is no error in
 * either store, so two runs at once, or a run after the removal's own delete, both succeed. A key the
 * store refuses (written by hand: absolute, with "..") names nothing the store ever wrote; it is
 * left alone rather than failing the job ten times.
 *
 * Not atomic with the check: a row referring to the key written by hand between the two loses its
 * bytes, as one written just after the removal would have before. The application never reuses a key.
 */
export async function deleteStoredFile(deps: { db: Db; fileStore: FileStore }, storageKey: string): Promise<StoredFileRemoval> {
  if (!isStoreKey(storageKey)) return 'notAStoreKey';
  if (await storageKeyInUse(deps.db, storageKey)) return 'inUse';
  await deps.fileStore.delete(storageKey);
  return 'deleted';
}

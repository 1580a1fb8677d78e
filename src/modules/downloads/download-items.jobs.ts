import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import {
  addPurchaseItems,
  addTakeItems,
  lockProductItems,
  productOfFile,
  purchaseKeys,
  removeFileItems,
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
// is queued by the delete's trigger (migration 2026_11_30_0850), in the deleting transaction,
// whoever deletes the row: removeProductFile, or an operator's `delete from product_file` by hand.
// File ids are never used again, so a new upload of the same format (a new row) is no item of this
// job's; a second run finds nothing to delete.

export const DOWNLOAD_FILE_REMOVAL_JOB = 'downloads.file-removal';

export function fileRemovalHandler(deps: { db: Db; batch: number }): JobHandler {
  const { db, batch } = deps;
  return async (job: { fileId: number }) => {
    // Never the case (ids are not used again), but a file that exists keeps its items.
    if ((await productOfFile(db, job.fileId)) !== undefined) return 'skipped';
    return `removed ${await removeFileItems(db, job.fileId, batch)}`;
  };
}

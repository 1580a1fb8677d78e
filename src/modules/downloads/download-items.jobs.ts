import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import { addPurchaseItems, addTakeItems, productOfFile, purchaseKeys, takeKeys } from './download-items.repository.js';

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
        added += await add(db, file, after, upto);
        if (page.length < batch) break;
        after = upto;
      }
    }
    return `added ${added}`;
  };
}

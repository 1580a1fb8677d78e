import type { Db } from '../../db/database.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { deleteStoredFile, DOWNLOAD_FILE_REMOVAL_JOB } from './download-items.jobs.js';
import { lastJobId, stampRemovalJob } from './download-items.repository.js';
import { deleteProductFile, productIdByCode } from './downloads.repository.js';
import type { FileFormat } from './downloads.schemas.js';

export type FileRemoval = { kind: 'removed'; id: number } | { kind: 'unknownProduct' } | { kind: 'noFile' };

/**
 * Removes the product's file of that format (DELETE /admin/product-files/..., `storefront
 * product-file remove`), then its stored bytes. The delete's trigger (migration 2026_11_30_1050)
 * queues, in its transaction, the job that deletes its holders' list items in pages and its bytes
 * (download-items.jobs.ts), as it does for a row deleted by hand; so this queues none of its own.
 * From the commit on no link is made for it and none is served; the lists read an item with its
 * file, so they no longer show it.
 *
 * The trigger can only write the database server's clock into the job; here, in the same
 * transaction, the job takes `now` (the action's time, the application's Clock) instead, as every
 * job the application queues does. What the time decides is only when the job is due and its place
 * in the queue: the worker compares run_at with its own host's clock, which the database server's
 * may be off from, and orders due jobs by run_at; a test's clock then sets it as it sets every other
 * job's. A row deleted by hand keeps the database's time (a psql session has no other clock): due
 * early or late by the servers' skew, which changes nothing else, as the handler reads no time from
 * the job and records none (it deletes the items and bytes rather than marking them).
 */
export async function removeProductFile(
  deps: { db: Db; fileStore: FileStore },
  file: { productCode: string; format: FileFormat },
  now: number,
): Promise<FileRemoval> {
  const productId = await productIdByCode(deps.db, file.productCode);
  if (productId === undefined) return { kind: 'unknownProduct' };
  const removed = await deps.db.transaction().execute(async (trx) => {
    const afterJobId = await lastJobId(trx);
    const row = await deleteProductFile(trx, { productId, format: file.format });
    if (row !== undefined) await stampRemovalJob(trx, { type: DOWNLOAD_FILE_REMOVAL_JOB, fileId: row.id, afterJobId }, now);
    return row;
  });
  if (removed === undefined) return { kind: 'noFile' };
  // At once, as before the job deleted bytes too; the job's delete then finds nothing, which is no error.
  await deleteStoredFile(deps, removed.storageKey);
  return { kind: 'removed', id: removed.id };
}

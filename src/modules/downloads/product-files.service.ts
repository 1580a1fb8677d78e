import type { Db } from '../../db/database.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { queueFileRemoval } from './download-items.jobs.js';
import { deleteProductFile, productIdByCode } from './downloads.repository.js';
import type { FileFormat } from './downloads.schemas.js';

export type FileRemoval = { kind: 'removed'; id: number } | { kind: 'unknownProduct' } | { kind: 'noFile' };

/**
 * Removes the product's file of that format (DELETE /admin/product-files/..., `storefront
 * product-file remove`), in one transaction with the job that deletes its holders' list items in
 * pages (download-items.jobs.ts), then its stored bytes. From the commit on no link is made for it
 * and none is served; the lists read an item with its file, so they no longer show it.
 */
export async function removeProductFile(
  deps: { db: Db; fileStore: FileStore },
  file: { productCode: string; format: FileFormat },
  now: number,
): Promise<FileRemoval> {
  const productId = await productIdByCode(deps.db, file.productCode);
  if (productId === undefined) return { kind: 'unknownProduct' };
  const removed = await deps.db.transaction().execute(async (trx) => {
    const row = await deleteProductFile(trx, { productId, format: file.format });
    if (row !== undefined) await queueFileRemoval(trx, row.id, now);
    return row;
  });
  if (removed === undefined) return { kind: 'noFile' };
  await deps.fileStore.delete(removed.storageKey);
  return { kind: 'removed', id: removed.id };
}

import type { Db } from '../../db/database.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { deleteProductFile, productIdByCode } from './downloads.repository.js';
import type { FileFormat } from './downloads.schemas.js';

export type FileRemoval = { kind: 'removed'; id: number } | { kind: 'unknownProduct' } | { kind: 'noFile' };

/**
 * Removes the product's file of that format (DELETE /admin/product-files/..., `storefront
 * product-file remove`), then its stored bytes. The delete's trigger (migration 2026_11_30_0850)
 * queues, in its transaction, the job that deletes its holders' list items in pages
 * (download-items.jobs.ts), as it does for a row deleted by hand; so this queues none of its own.
 * From the commit on no link is made for it and none is served; the lists read an item with its
 * file, so they no longer show it.
 */
export async function removeProductFile(
  deps: { db: Db; fileStore: FileStore },
  file: { productCode: string; format: FileFormat },
): Promise<FileRemoval> {
  const productId = await productIdByCode(deps.db, file.productCode);
  if (productId === undefined) return { kind: 'unknownProduct' };
  const removed = await deleteProductFile(deps.db, { productId, format: file.format });
  if (removed === undefined) return { kind: 'noFile' };
  await deps.fileStore.delete(removed.storageKey);
  return { kind: 'removed', id: removed.id };
}

import type { Db } from '../../db/database.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { queueFileRemoval } from './download-items.jobs.js';
import { deleteProductFile, productIdByCode } from './downloads.repository.js';
import { FILE_FORMATS, type FileFormat } from './downloads.schemas.js';

export const PRODUCT_FILE_USAGE = `  product-file remove <productCode> <FORMAT>
                                      removes the product's file of that format (${Object.keys(FILE_FORMATS).join(', ')}):
                                      no link is made for it or served from then on, and its holders'
                                      lists no longer show it; a job (downloads.file-removal) deletes
                                      their items in pages of DOWNLOAD_ITEMS_BATCH`;

/**
 * Removes the product's file of that format, in one transaction with the job that deletes its
 * holders' list items in pages (download-items.jobs.ts), then its stored bytes. Answers the removed
 * file's id, or undefined when the product has no file of that format.
 */
export async function removeProductFile(
  deps: { db: Db; fileStore: FileStore },
  file: { productCode: string; format: FileFormat },
  now: number,
): Promise<number | undefined> {
  const productId = await productIdByCode(deps.db, file.productCode);
  if (productId === undefined) throw new CliUsageError(`product-file remove: there is no product with the code "${file.productCode}"`);
  const removed = await deps.db.transaction().execute(async (trx) => {
    const row = await deleteProductFile(trx, { productId, format: file.format });
    if (row !== undefined) await queueFileRemoval(trx, row.id, now);
    return row;
  });
  if (removed === undefined) return undefined;
  await deps.fileStore.delete(removed.storageKey);
  return removed.id;
}

/** `storefront product-file remove <productCode> <FORMAT>`. */
export async function productFileCommand(
  deps: { db: Db; fileStore: FileStore; clock?: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, productCode, format, ...rest] = args;
  if (action !== 'remove' || productCode === undefined || format === undefined || rest.length > 0)
    throw new CliUsageError('product-file remove <productCode> <FORMAT>');
  if (!Object.hasOwn(FILE_FORMATS, format))
    throw new CliUsageError(`product-file remove: the format is one of ${Object.keys(FILE_FORMATS).join(', ')}, not "${format}"`);
  const id = await removeProductFile(deps, { productCode, format: format as FileFormat }, (deps.clock ?? systemClock).now());
  print(
    id === undefined
      ? `${productCode} has no ${format} file; nothing was removed.`
      : `Removed ${productCode}'s ${format} file (${id}); its holders' list items go through a job.`,
  );
}

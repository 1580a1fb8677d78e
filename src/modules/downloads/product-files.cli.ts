import type { Db } from '../../db/database.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { FILE_FORMATS, type FileFormat } from './downloads.schemas.js';
import { removeProductFile } from './product-files.service.js';

export const PRODUCT_FILE_USAGE = `  product-file remove <productCode> <FORMAT>
                                      removes the product's file of that format (${Object.keys(FILE_FORMATS).join(', ')}):
                                      no link is made for it or served from then on, and its holders'
                                      lists no longer show it; a job (downloads.file-removal) deletes
                                      their items in pages of DOWNLOAD_ITEMS_BATCH; exit 1 when the product
                                      has no file of that format`;

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
  const removal = await removeProductFile(deps, { productCode, format: format as FileFormat }, (deps.clock ?? systemClock).now());
  // The command line is right, what it names is not there: the message alone, exit 1 (as the API's
  // 404), so a script or an operator cannot take a removal of nothing for one done.
  if (removal.kind === 'unknownProduct') throw new Error(`product-file remove: there is no product with the code "${productCode}"`);
  if (removal.kind === 'noFile')
    throw new Error(`product-file remove: the product "${productCode}" has no ${format} file; nothing was removed`);
  print(`Removed ${productCode}'s ${format} file (${removal.id}); its holders' list items go through a job.`);
}

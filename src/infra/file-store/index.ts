// The file store: one interface (file-store.ts), the local disk (local-file-store.ts) or an
// S3-compatible bucket (s3-file-store.ts) behind it.
export {
  checkedKey,
  FileStoreKeyError,
  isStoreKey,
  type ByteSpan,
  type FileStore,
  type OpenedFile,
  type StoredFile,
} from './file-store.js';
export { readFileStoreConfig, type FileStoreConfig } from './file-store.config.js';
export { localFileStore } from './local-file-store.js';
export type { S3StoreConfig } from './s3-file-store.js';

import type { FileStoreConfig } from './file-store.config.js';
import type { FileStore } from './file-store.js';
import { localFileStore } from './local-file-store.js';

/**
 * The configured store: the S3-compatible bucket when one is configured, else the local disk. The
 * S3 client is loaded only then (it is large, and most installs keep files on disk).
 */
export async function createFileStore(config: FileStoreConfig): Promise<FileStore> {
  if (!config.s3) return localFileStore(config.dir);
  const { s3FileStore } = await import('./s3-file-store.js');
  return s3FileStore(config.s3);
}

// The file store: one interface (file-store.ts), the local disk behind it (local-file-store.ts).
export { checkedKey, FileStoreKeyError, isStoreKey, type ByteSpan, type FileStore, type StoredFile } from './file-store.js';
export { readFileStoreConfig, type FileStoreConfig } from './file-store.config.js';
export { localFileStore } from './local-file-store.js';

import type { FileStoreConfig } from './file-store.config.js';
import type { FileStore } from './file-store.js';
import { localFileStore } from './local-file-store.js';

/** The configured store: the local disk (the only kind this build has; see file-store.config.ts). */
export function createFileStore(config: FileStoreConfig): FileStore {
  return localFileStore(config.dir);
}

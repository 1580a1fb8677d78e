// Placeholder so that catalogue-import compiles on this branch: h-accounts owns the real store/index.ts
// (STORE_CODES moves to store-codes.ts there); take theirs at merge.
export { STORE_CODES, type StoreCode } from '../../config.js';

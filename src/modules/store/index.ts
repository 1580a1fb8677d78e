// The store module's public surface: web stores, their settings and the operators' `store` command.
export { isStoreCode, STORE_CODES, type StoreCode } from './store-codes.js';
export {
  changeStore,
  createStoreCache,
  getAllStores,
  getStore,
  StoreSettingsError,
  type StoreCache,
  type StoreChanges,
  type StoreSettings,
} from './store.service.js';
export { STORE_USAGE, storeCommand } from './store.cli.js';
export type { StoreTables, WebStoreTable } from './store.tables.js';

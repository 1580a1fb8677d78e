// The downloads module's public surface: the customers' download routes, one order's downloads (for
// the orders module's routes of an order), the operators' upload of product files, its config
// section, tables and messages.
export { downloadsRoutes, type DownloadsDeps } from './downloads.routes.js';
export { productFilesRoutes, PRODUCT_FILE_MAX_BYTES, type ProductFilesDeps } from './product-files.routes.js';
export { readDownloadsConfig, type DownloadsSection } from './downloads.config.js';
export { productsWithFiles, pruneUsedLinks } from './downloads.repository.js';
export { orderDownloads, type OrderDownloads } from './order-downloads.js';
export { DownloadIdParams, DownloadLinkSchema, DownloadSchema } from './downloads.schemas.js';
export { DOWNLOAD_FILE_ITEMS_JOB, DOWNLOAD_FILE_REMOVAL_JOB, fileItemsHandler, fileRemovalHandler } from './download-items.jobs.js';
export type * from './downloads.tables.js';
export { downloadsMessages } from './downloads.messages.js';
export { downloadsPersonalData } from './downloads.personal-data.js';

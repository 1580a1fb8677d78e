// The analytics partner's read-only export API, its users (CLI) and the sales history it exports.
export { readDataExportConfig, type DataExportConfig, type ExportSettings } from './data-export.config.js';
export { dataExportRoutes, type DataExportDeps } from './data-export.routes.js';
export { EXPORT_USER_USAGE, exportUserCommand } from './export-user.cli.js';
export { salesHistoryKind } from './sales-history-import.js';
export { eraseSalesOfOrders, recordOnlineSale, setSaleCreatedNavByOrder, type OnlineSale } from './online-sales.js';
export type { DataExportTables, ExportUserTable, SalesHistoryItemTable, SalesHistoryTable } from './data-export.tables.js';
export { dataExportMessages } from './data-export.messages.js';
export { dataExportPersonalData } from './data-export.personal-data.js';

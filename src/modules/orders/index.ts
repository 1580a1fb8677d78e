// The orders module's public surface: its routes, config, tables and messages.
export { ordersRoutes } from './orders.routes.js';
export type { OrdersDeps } from './orders.deps.js';
export type { Gateways } from '../payments/index.js';
export { readOrdersConfig, type OrdersSection } from './orders.config.js';
export type * from './orders.tables.js';
export { checkoutMessages } from './checkout.messages.js';

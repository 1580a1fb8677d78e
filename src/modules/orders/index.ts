export type * from './orders.tables.js';
// Processing, the sweep and the operators' order endpoints (processing/, admin-orders.routes.ts).
export { adminOrdersRoutes, type AdminOrdersDeps } from './admin-orders.routes.js';
export { ORDER_PROCESSING_JOB } from './order-states.js';
export { ordersMessages } from './orders.messages.js';
export { ORDER_HANDOFF_JOB, orderHandoffHandler } from './processing/handoff.js';
export { ORDER_MAIL_JOB, orderMailHandler } from './processing/order-mail.js';
export { scheduleOrderSweep, sweepOrders, type Gateways, type OrderSweepDeps } from './processing/order-sweep.js';
export { orderProcessingHandler } from './processing/process-order.js';

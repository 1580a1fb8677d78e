// The orders module's public surface: its routes, config, tables and messages.
export { ordersRoutes } from './orders.routes.js';
export type { OrdersDeps } from './orders.deps.js';
export { readOrdersConfig, type OrdersSection } from './orders.config.js';
export type * from './orders.tables.js';
export { checkoutMessages } from './checkout.messages.js';
// Processing, the sweep and the operators' order endpoints (processing/, admin-orders.routes.ts).
export { adminOrdersRoutes, type AdminOrdersDeps } from './admin-orders.routes.js';
export { ORDER_PROCESSING_JOB } from './order-states.js';
export { ordersMessages } from './orders.messages.js';
export { ORDER_HANDOFF_JOB, orderHandoffHandler } from './processing/handoff.js';
export { ORDER_MAIL_JOB, orderMailHandler } from './processing/order-mail.js';
export { ORDER_CANCELLED_MAIL_JOB, orderCancelledMailHandler } from './processing/cancellation-mail.js';
export { ORDER_PICKUP_MAIL_JOB, orderPickupMailHandler } from './processing/pickup-mail.js';
export { ORDER_FEEDBACK_MAIL_JOB, orderFeedbackMailHandler, scheduleFeedbackRequestScan } from './processing/feedback-request.js';
export { feedbackRequestPersonalData } from './processing/feedback-request.repository.js';
export { ORDER_REFUNDED_MAIL_JOB, orderRefundedMailHandler } from './processing/refund-mail.js';
export { scheduleOrderSweep, sweepOrders, type OrderSweepDeps } from './processing/order-sweep.js';
export { orderProcessingHandler } from './processing/process-order.js';
export { ordersPersonalData } from './orders.personal-data.js';
export { giftsReceivedPersonalData } from './gift-downloads.personal-data.js';
export { revivalRefusalCount } from './processing/revival-refusals.repository.js';

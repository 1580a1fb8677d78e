export type * from './orders.tables.js';
export { checkoutMessages } from './checkout.messages.js';

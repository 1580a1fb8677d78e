export type * from './orders.tables.js';

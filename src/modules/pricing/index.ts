export * from './pricing.js';

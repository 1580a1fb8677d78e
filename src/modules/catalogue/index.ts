export * from './denormalised.js';

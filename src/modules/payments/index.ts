// The payments module's public surface: the gateway interface the orders module drives, and the
// adapters of the providers (each in its own folder).
export * from './gateway.js';
export * from './test-gateway/index.js';

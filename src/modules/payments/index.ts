// The payments module's public surface: the gateway interface the orders module drives, and the
// adapters of the providers (each in its own folder).
export * from './gateway.js';
export { createEveryPayGateway, type EveryPayDeps } from './everypay/everypay.gateway.js';
export { readEveryPayConfig, EVERYPAY_LIVE_URL, type EveryPayConfig } from './everypay/everypay.config.js';
export * from './test-gateway/index.js';
export { configuredGateways, type Gateways } from './gateways.js';
export { lookUpOnReturn, lookUpPauses, pausedLookUp, type LookUpPauses } from './look-up-pauses.js';

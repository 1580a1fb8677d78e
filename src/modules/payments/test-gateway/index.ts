// The test gateway's public surface, re-exported by the payments module's index.
export { createTestGateway, testGatewayPagePath, type TestGatewayConfig } from './test-gateway.adapter.js';
export { testGatewayEnabled, type TestGatewaySetting } from './test-gateway.config.js';
export { testGatewayRoutes, type TestGatewayDeps } from './test-gateway.routes.js';
export type { TestGatewayPaymentTable, TestGatewayRefundTable, TestGatewayState, TestGatewayTables } from './test-gateway.tables.js';

import type { DatabaseHandle } from '../../db/database.js';
import type { Clock } from '../../infra/clock.js';
import type { EveryPayConfig } from './everypay/everypay.config.js';
import { createEveryPayGateway } from './everypay/everypay.gateway.js';
import type { GatewayName, PaymentGateway } from './gateway.js';
import { createTestGateway } from './test-gateway/index.js';

export type Gateways = Partial<Record<GatewayName, PaymentGateway>>;

/** The gateways this installation takes money through: EveryPay when configured, the test gateway when on. */
export function configuredGateways(deps: {
  database: DatabaseHandle;
  clock: Clock;
  everypay: EveryPayConfig | undefined;
  testGateway: boolean;
  publicUrl: string;
  basePath: string;
}): Gateways {
  const gateways: Gateways = {};
  if (deps.everypay) gateways.everypay = createEveryPayGateway(deps.everypay);
  if (deps.testGateway)
    gateways.test = createTestGateway(deps.database, { publicUrl: deps.publicUrl, basePath: deps.basePath }, deps.clock);
  return gateways;
}

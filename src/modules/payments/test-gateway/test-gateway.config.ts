import type { EnvReader } from '../../../infra/env.js';

/**
 * `TEST_GATEWAY`: `on` or `off` as set; unset, `with-demo`: on exactly when the service runs with
 * the demo data (`serve --seed-demo`, what `npm start` does), so a production deployment does not
 * offer a payment page that takes no money unless it says so. `serve` resolves `with-demo`.
 */
export type TestGatewaySetting = 'on' | 'off' | 'with-demo';

export function readTestGatewayConfig(env: EnvReader): TestGatewaySetting {
  const value = env.optional('TEST_GATEWAY');
  if (value === undefined) return 'with-demo';
  if (value === 'on' || value === 'off') return value;
  env.problem(`TEST_GATEWAY must be on or off (unset: on with the demo data only), got "${value}"`);
  return 'off';
}

/** Whether the test gateway's routes are served: `with-demo` follows the demo. */
export function testGatewayEnabled(setting: TestGatewaySetting, withDemo: boolean): boolean {
  return setting === 'on' || (setting === 'with-demo' && withDemo);
}

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { testGatewayEnabled } from '../../src/modules/payments/index.js';

describe('TEST_GATEWAY', () => {
  it('is on or off as set, and unset follows the demo', () => {
    expect(loadConfig({}).testGateway).toBe('with-demo');
    expect(loadConfig({ TEST_GATEWAY: 'on' }).testGateway).toBe('on');
    expect(loadConfig({ TEST_GATEWAY: ' off ' }).testGateway).toBe('off');
    expect(testGatewayEnabled('with-demo', true)).toBe(true);
    expect(testGatewayEnabled('with-demo', false)).toBe(false);
    expect(testGatewayEnabled('on', false)).toBe(true);
    expect(testGatewayEnabled('off', true)).toBe(false);
  });

  it('refuses anything else, by name', () => {
    for (const bad of ['true', 'yes', 'ON', 'with-demo']) {
      expect(() => loadConfig({ TEST_GATEWAY: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ TEST_GATEWAY: bad }), bad).toThrow(/TEST_GATEWAY must be on or off/);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('the integrations configuration', () => {
  it('limits each supplier to 60 feed requests an hour and each address to 600, unless the environment says otherwise', () => {
    expect(loadConfig({}).integrations).toEqual({
      supplierRateLimit: { max: 60, windowMs: 3_600_000 },
      supplierAddressRateLimit: { max: 600, windowMs: 3_600_000 },
    });
    expect(loadConfig({ SUPPLIER_RATE_LIMIT: '10/1m' }).integrations.supplierRateLimit).toEqual({ max: 10, windowMs: 60_000 });
    expect(loadConfig({ SUPPLIER_RATE_LIMIT_PER_IP: '5/1m' }).integrations.supplierAddressRateLimit).toEqual({ max: 5, windowMs: 60_000 });
    for (const bad of ['often', '0/1m', '5']) {
      expect(() => loadConfig({ SUPPLIER_RATE_LIMIT: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ SUPPLIER_RATE_LIMIT_PER_IP: bad }), bad).toThrow(ConfigError);
    }
  });
});

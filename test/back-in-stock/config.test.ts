import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The back-in-stock section of the configuration: its two rate limits, their defaults and bad values.

describe('BACK_IN_STOCK_RATE_LIMIT_PER_IP and _PER_EMAIL', () => {
  it('default to 30 an hour per client address and 10 an hour per email', () => {
    expect(loadConfig({}).backInStock).toEqual({ perIp: { max: 30, windowMs: 3_600_000 }, perEmail: { max: 10, windowMs: 3_600_000 } });
  });

  it('read <count>/<duration>', () => {
    const config = loadConfig({ BACK_IN_STOCK_RATE_LIMIT_PER_IP: '5/10m', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '3/1d' });
    expect(config.backInStock).toEqual({ perIp: { max: 5, windowMs: 600_000 }, perEmail: { max: 3, windowMs: 86_400_000 } });
  });

  it('refuse anything else, naming the variable', () => {
    for (const [name, value] of [
      ['BACK_IN_STOCK_RATE_LIMIT_PER_IP', 'lots'],
      ['BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL', '0/1m'],
    ]) {
      expect(() => loadConfig({ [name!]: value! })).toThrow(ConfigError);
      expect(() => loadConfig({ [name!]: value! })).toThrow(name);
    }
  });
});

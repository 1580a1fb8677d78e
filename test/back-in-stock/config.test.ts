import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The back-in-stock section of the configuration: its rate limits and the guest's confirmation
// link (lifetime, front-end page), their defaults and bad values.

const LINK = { confirmTokenTtlMs: 2 * 86_400_000, confirmPath: '/back-in-stock/confirm', confirmPerIp: { max: 20, windowMs: 60_000 } };

describe('BACK_IN_STOCK_RATE_LIMIT_PER_IP and _PER_EMAIL', () => {
  it('default to 30 an hour per client address and 10 an hour per email', () => {
    expect(loadConfig({}).backInStock).toEqual({
      perIp: { max: 30, windowMs: 3_600_000 },
      perEmail: { max: 10, windowMs: 3_600_000 },
      ...LINK,
    });
  });

  it('read <count>/<duration>', () => {
    const config = loadConfig({ BACK_IN_STOCK_RATE_LIMIT_PER_IP: '5/10m', BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '3/1d' });
    expect(config.backInStock).toEqual({ perIp: { max: 5, windowMs: 600_000 }, perEmail: { max: 3, windowMs: 86_400_000 }, ...LINK });
  });

  it('read the confirmation link settings', () => {
    const config = loadConfig({
      BACK_IN_STOCK_CONFIRM_TOKEN_TTL: '6h',
      BACK_IN_STOCK_CONFIRM_PATH: '/teavita/kinnita',
      BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP: '4/1m',
    });
    expect(config.backInStock).toMatchObject({
      confirmTokenTtlMs: 6 * 3_600_000,
      confirmPath: '/teavita/kinnita',
      confirmPerIp: { max: 4, windowMs: 60_000 },
    });
  });

  it('refuse anything else, naming the variable', () => {
    for (const [name, value] of [
      ['BACK_IN_STOCK_RATE_LIMIT_PER_IP', 'lots'],
      ['BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL', '0/1m'],
      ['BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP', '1/never'],
      ['BACK_IN_STOCK_CONFIRM_TOKEN_TTL', 'soon'],
      ['BACK_IN_STOCK_CONFIRM_PATH', 'no-slash'],
    ]) {
      expect(() => loadConfig({ [name!]: value! })).toThrow(ConfigError);
      expect(() => loadConfig({ [name!]: value! })).toThrow(name);
    }
  });
});

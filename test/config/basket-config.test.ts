import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('basket configuration', () => {
  it('lets one client address make 300 guest baskets an hour and 600 guest writes a minute unless BASKET_RATE_LIMIT_PER_IP and BASKET_WRITE_RATE_LIMIT_PER_IP say otherwise', () => {
    expect(loadConfig({}).basket).toEqual({
      newGuestBasketsPerIp: { max: 300, windowMs: 3_600_000 },
      guestWritesPerIp: { max: 600, windowMs: 60_000 },
      wrongCodesPerIp: { max: 10, windowMs: 600_000 },
    });
    expect(loadConfig({ BASKET_RATE_LIMIT_PER_IP: '20/1m' }).basket.newGuestBasketsPerIp).toEqual({ max: 20, windowMs: 60_000 });
    expect(loadConfig({ BASKET_WRITE_RATE_LIMIT_PER_IP: '20/1m' }).basket.guestWritesPerIp).toEqual({ max: 20, windowMs: 60_000 });
    for (const bad of ['often', '0/1m', '5']) {
      expect(() => loadConfig({ BASKET_RATE_LIMIT_PER_IP: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ BASKET_WRITE_RATE_LIMIT_PER_IP: bad }), bad).toThrow(ConfigError);
    }
  });
});

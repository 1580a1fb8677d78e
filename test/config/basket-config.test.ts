import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('basket configuration', () => {
  it('lets one client address make 300 guest baskets an hour and 600 guest writes a minute unless BASKET_RATE_LIMIT_PER_IP and BASKET_WRITE_RATE_LIMIT_PER_IP say otherwise', () => {
    expect(loadConfig({}).basket).toEqual({
      newGuestBasketsPerIp: { max: 300, windowMs: 3_600_000 },
      guestWritesPerIp: { max: 600, windowMs: 60_000 },
      wrongCodesPerIp: { max: 10, windowMs: 600_000 },
      reminderAfterMs: 24 * 3_600_000,
      reminderScanIntervalMs: 600_000,
      basketPagePath: '/basket',
    });
    expect(loadConfig({ BASKET_RATE_LIMIT_PER_IP: '20/1m' }).basket.newGuestBasketsPerIp).toEqual({ max: 20, windowMs: 60_000 });
    expect(loadConfig({ BASKET_WRITE_RATE_LIMIT_PER_IP: '20/1m' }).basket.guestWritesPerIp).toEqual({ max: 20, windowMs: 60_000 });
    for (const bad of ['often', '0/1m', '5']) {
      expect(() => loadConfig({ BASKET_RATE_LIMIT_PER_IP: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ BASKET_WRITE_RATE_LIMIT_PER_IP: bad }), bad).toThrow(ConfigError);
    }
  });

  it('reminds of a basket 24 h after its last change, scanning every 10 minutes, linking to /basket, unless told otherwise', () => {
    const basket = loadConfig({ BASKET_REMINDER_AFTER_HOURS: '48', BASKET_REMINDER_SCAN_INTERVAL: '1m', BASKET_PAGE_PATH: '/cart' }).basket;
    expect(basket).toMatchObject({ reminderAfterMs: 48 * 3_600_000, reminderScanIntervalMs: 60_000, basketPagePath: '/cart' });
    // A basket is reminded of within 7 days of its last change: 168 hours or more would remind of none.
    for (const bad of ['0', '168', 'day']) expect(() => loadConfig({ BASKET_REMINDER_AFTER_HOURS: bad }), bad).toThrow(ConfigError);
    expect(() => loadConfig({ BASKET_REMINDER_SCAN_INTERVAL: 'often' })).toThrow(ConfigError);
    expect(() => loadConfig({ BASKET_PAGE_PATH: 'basket' })).toThrow(ConfigError);
  });
});

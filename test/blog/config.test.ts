import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The blog section of the configuration: what one client address may repeat on /external-url and /qr-code.

describe('REDIRECT_HIT_CAP_PER_IP_REDIRECT, REDIRECT_HIT_CAP_PER_IP and QR_CODE_RATE_LIMIT_PER_IP', () => {
  it('default to 3 hits an hour per address and redirect, 300 an hour per address, and 600 QR codes a minute', () => {
    expect(loadConfig({}).blog).toEqual({
      redirectHitsPerAddressRedirect: { max: 3, windowMs: 3_600_000 },
      redirectHitsPerAddress: { max: 300, windowMs: 3_600_000 },
      qrCodesPerAddress: { max: 600, windowMs: 60_000 },
    });
  });

  it('refuse anything but <count>/<duration>, naming the variable', () => {
    for (const name of ['REDIRECT_HIT_CAP_PER_IP_REDIRECT', 'REDIRECT_HIT_CAP_PER_IP', 'QR_CODE_RATE_LIMIT_PER_IP']) {
      expect(() => loadConfig({ [name]: '0/1m' })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: 'many' })).toThrow(name);
    }
  });
});

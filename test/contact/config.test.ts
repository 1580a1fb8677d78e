import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The contact section of the configuration: its rate limit, default and bad values.

describe('CONTACT_RATE_LIMIT_PER_IP', () => {
  it('defaults to 5 an hour per client address', () => {
    expect(loadConfig({}).contact).toEqual({ perIp: { max: 5, windowMs: 3_600_000 } });
  });

  it('reads <count>/<duration>', () => {
    expect(loadConfig({ CONTACT_RATE_LIMIT_PER_IP: '2/10m' }).contact).toEqual({ perIp: { max: 2, windowMs: 600_000 } });
  });

  it('refuses anything else, naming the variable', () => {
    for (const value of ['lots', '0/1m', '5/never']) {
      expect(() => loadConfig({ CONTACT_RATE_LIMIT_PER_IP: value })).toThrow(ConfigError);
      expect(() => loadConfig({ CONTACT_RATE_LIMIT_PER_IP: value })).toThrow('CONTACT_RATE_LIMIT_PER_IP');
    }
  });
});

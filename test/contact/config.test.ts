import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The contact section of the configuration: its rate limits, defaults and bad values.

const HOUR = { max: 5, windowMs: 3_600_000 };

// CONTACT_ACK_PER_EMAIL: one acknowledgement a day to a guest-typed address.
const DAY_ONE = { max: 1, windowMs: 86_400_000 };

describe('CONTACT_RATE_LIMIT_PER_IP and CONTACT_RATE_LIMIT_PER_EMAIL', () => {
  it('default to 5 an hour per client address and per sender email', () => {
    expect(loadConfig({}).contact).toEqual({ perIp: HOUR, perEmail: HOUR, ackPerEmail: DAY_ONE });
  });

  it('read <count>/<duration>', () => {
    expect(loadConfig({ CONTACT_RATE_LIMIT_PER_IP: '2/10m' }).contact).toEqual({
      perIp: { max: 2, windowMs: 600_000 },
      perEmail: HOUR,
      ackPerEmail: DAY_ONE,
    });
    expect(loadConfig({ CONTACT_RATE_LIMIT_PER_EMAIL: '3/1d' }).contact).toEqual({
      perIp: HOUR,
      perEmail: { max: 3, windowMs: 86_400_000 },
      ackPerEmail: DAY_ONE,
    });
  });

  it('refuse anything else, naming the variable', () => {
    for (const name of ['CONTACT_RATE_LIMIT_PER_IP', 'CONTACT_RATE_LIMIT_PER_EMAIL']) {
      for (const value of ['lots', '0/1m', '5/never']) {
        expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
        expect(() => loadConfig({ [name]: value })).toThrow(name);
      }
    }
  });
});

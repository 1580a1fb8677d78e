import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The ctr section of the configuration: the caps on counted banner views and clicks.

describe('CTR_CAP_PER_SESSION_BANNER and CTR_CAP_PER_IP', () => {
  it('default to 3 a minute per session and banner and 600 a minute per client address', () => {
    expect(loadConfig({}).ctr).toEqual({ perSessionBanner: { max: 3, windowMs: 60_000 }, perAddress: { max: 600, windowMs: 60_000 } });
  });

  it('read <count>/<duration>', () => {
    const config = loadConfig({ CTR_CAP_PER_SESSION_BANNER: '1/10s', CTR_CAP_PER_IP: '100/1h' });
    expect(config.ctr).toEqual({ perSessionBanner: { max: 1, windowMs: 10_000 }, perAddress: { max: 100, windowMs: 3_600_000 } });
  });

  it('refuse anything else, naming the variable', () => {
    for (const [name, value] of [
      ['CTR_CAP_PER_SESSION_BANNER', 'few'],
      ['CTR_CAP_PER_IP', '0/1m'],
    ] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The tracking section of the configuration (README, "Configuration").

describe('tracking configuration', () => {
  it('has defaults: 1,200 session actions a minute per address, 60 per session', () => {
    expect(loadConfig({}).tracking).toEqual({ perAddress: { max: 1200, windowMs: 60_000 }, perSession: { max: 60, windowMs: 60_000 } });
  });

  it('reads SESSION_ACTION_RATE_LIMIT_PER_IP and _PER_SESSION, and names a bad value', () => {
    const config = loadConfig({ SESSION_ACTION_RATE_LIMIT_PER_IP: '100/10s', SESSION_ACTION_RATE_LIMIT_PER_SESSION: '10/1m' });
    expect(config.tracking).toEqual({ perAddress: { max: 100, windowMs: 10_000 }, perSession: { max: 10, windowMs: 60_000 } });
    for (const name of ['SESSION_ACTION_RATE_LIMIT_PER_IP', 'SESSION_ACTION_RATE_LIMIT_PER_SESSION']) {
      try {
        loadConfig({ [name]: 'many' });
        expect.unreachable(name);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).problems.join('\n')).toContain(name);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

// The search section of the configuration (README, "Configuration").

describe('search configuration', () => {
  it('has defaults: 3,000 ms of work per 10 s per address, 1 s per request', () => {
    expect(loadConfig({}).search).toEqual({ perAddress: { max: 3000, windowMs: 10_000 }, timeBudgetMs: 1000 });
  });

  it('reads SEARCH_RATE_LIMIT_PER_IP and SEARCH_TIME_BUDGET_MS, and names a bad value', () => {
    const config = loadConfig({ SEARCH_RATE_LIMIT_PER_IP: '600/1m', SEARCH_TIME_BUDGET_MS: '250' });
    expect(config.search).toEqual({ perAddress: { max: 600, windowMs: 60_000 }, timeBudgetMs: 250 });
    for (const [name, value] of [
      ['SEARCH_RATE_LIMIT_PER_IP', 'lots'],
      ['SEARCH_RATE_LIMIT_PER_IP', '0/1m'],
      ['SEARCH_TIME_BUDGET_MS', '0'],
      ['SEARCH_TIME_BUDGET_MS', '1s'],
    ] as const) {
      expect(() => loadConfig({ [name]: value }), `${name}=${value}`).toThrow(ConfigError);
      try {
        loadConfig({ [name]: value });
      } catch (error) {
        expect((error as ConfigError).problems.join('\n')).toContain(name);
      }
    }
  });
});

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { runCli } from '../helpers/cli.js';
import { configProblems } from '../helpers/config.js';

// The operator's settings of issue 18: where /metrics is served (METRICS_HOST, METRICS_PORT,
// METRICS_TOKEN) and how log lines look (LOG_FORMAT).

describe('metrics and log settings', () => {
  it('serve no /metrics and choose the log format by the terminal by default', () => {
    const config = loadConfig({});
    expect(config.metrics).toEqual({
      host: '127.0.0.1',
      port: undefined,
      token: undefined,
      authFailuresPerIp: { max: 20, windowMs: 15 * 60_000 },
    });
    expect(config.logFormat).toBe('auto');
  });

  it('read a metrics listener, a token and a log format', () => {
    const config = loadConfig({
      METRICS_HOST: '0.0.0.0',
      METRICS_PORT: '9464',
      METRICS_TOKEN: 'a-long-enough-token-123',
      LOG_FORMAT: 'json',
    });
    expect(config.metrics).toMatchObject({ host: '0.0.0.0', port: 9464, token: 'a-long-enough-token-123' });
    expect(config.logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
  });

  it('refuse a bad port, a host without a port, a short token and an unknown log format, all at once', () => {
    const problems = configProblems({ METRICS_PORT: '70000', METRICS_TOKEN: 'short', LOG_FORMAT: 'xml' });
    expect(problems.join('\n')).toMatch(/METRICS_PORT/);
    expect(problems.join('\n')).toMatch(/METRICS_TOKEN must be at least 16/);
    expect(problems.join('\n')).toMatch(/LOG_FORMAT/);
    expect(configProblems({ METRICS_HOST: '10.0.0.5' })).toEqual([expect.stringMatching(/METRICS_HOST needs METRICS_PORT/)]);
    expect(configProblems({ METRICS_PORT: 'abc' })).toEqual([expect.stringMatching(/METRICS_PORT must be a whole number/)]);
  });
});

// A worker's periodic runs wait on Node's timers, which take at most 2^31 - 1 ms (about 24.8 days):
// a longer delay is run after 1 ms instead, with a warning. ORDER_SWEEP_INTERVAL=30d (or a monthly
// wishlist offer scan) was accepted and made the worker sweep back to back, for good.
describe("the intervals of the worker's periodic runs", () => {
  const intervals = ['ORDER_SWEEP_INTERVAL', 'BASKET_REMINDER_SCAN_INTERVAL', 'WISHLIST_OFFER_SCAN_INTERVAL'];

  it('take up to 24 days', () => {
    const config = loadConfig({ ORDER_SWEEP_INTERVAL: '24d', BASKET_REMINDER_SCAN_INTERVAL: '1h', WISHLIST_OFFER_SCAN_INTERVAL: '7d' });
    expect(config.orders.sweepIntervalMs).toBe(24 * 86_400_000);
    expect(config.basket.reminderScanIntervalMs).toBe(3_600_000);
    expect(config.wishlist.offerScanIntervalMs).toBe(7 * 86_400_000);
  });

  it('stop a command at start past that, each named', async () => {
    const result = await runCli(['migrate'], {
      DATABASE_URL: 'sqlite::memory:',
      ...Object.fromEntries(intervals.map((name) => [name, '30d'])),
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    for (const name of intervals)
      expect(result.stderr).toContain(`  - ${name} must be at most 24d (the longest wait of a timer), got "30d"`);
    expect(configProblems({ ORDER_SWEEP_INTERVAL: '2147484s' })).toEqual([
      expect.stringMatching(/^ORDER_SWEEP_INTERVAL must be at most 24d/),
    ]);
  });
});

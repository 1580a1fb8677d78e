import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../helpers/config.js';

// The subscriptions section: how many charges a billing run has at the gateway at once, how
// many card checks one client and one address may start, and how many times one client may subscribe.

const problemsOf = (env: Record<string, string>) => configProblems(env).join('\n');

describe('the subscriptions section', () => {
  it('charges 4 subscriptions at once by default, and lets a client start 10 card checks an hour, an address 30, and subscribe 10 times an hour', () => {
    expect(loadConfig({}).subscriptions).toEqual({
      billingConcurrency: 4,
      cardChecks: { perClient: { max: 10, windowMs: 3_600_000 }, perIp: { max: 30, windowMs: 3_600_000 } },
      subscribePerClient: { max: 10, windowMs: 3_600_000 },
    });
  });

  it('reads CARD_CHECK_RATE_LIMIT_PER_CLIENT and _PER_IP, and refuses a malformed one', () => {
    const limits = loadConfig({ CARD_CHECK_RATE_LIMIT_PER_CLIENT: '3/1m', CARD_CHECK_RATE_LIMIT_PER_IP: '7/10m' }).subscriptions.cardChecks;
    expect(limits).toEqual({ perClient: { max: 3, windowMs: 60_000 }, perIp: { max: 7, windowMs: 600_000 } });
    expect(problemsOf({ CARD_CHECK_RATE_LIMIT_PER_CLIENT: 'lots' })).toContain('CARD_CHECK_RATE_LIMIT_PER_CLIENT');
  });

  it('reads SUBSCRIBE_RATE_LIMIT_PER_CLIENT, and refuses a malformed one', () => {
    expect(loadConfig({ SUBSCRIBE_RATE_LIMIT_PER_CLIENT: '4/30m' }).subscriptions.subscribePerClient).toEqual({
      max: 4,
      windowMs: 1_800_000,
    });
    expect(problemsOf({ SUBSCRIBE_RATE_LIMIT_PER_CLIENT: '10 an hour' })).toContain('SUBSCRIBE_RATE_LIMIT_PER_CLIENT');
  });

  it('reads SUBSCRIPTION_BILLING_CONCURRENCY', () => {
    expect(loadConfig({ SUBSCRIPTION_BILLING_CONCURRENCY: '12' }).subscriptions.billingConcurrency).toBe(12);
  });

  it('refuses a pool of none, of too many or of words', () => {
    for (const value of ['0', '33', 'many'])
      expect(problemsOf({ SUBSCRIPTION_BILLING_CONCURRENCY: value })).toContain('SUBSCRIPTION_BILLING_CONCURRENCY');
  });
});

import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../helpers/config.js';

// The subscriptions section: how many charges a billing run has at the gateway at once.

const problemsOf = (env: Record<string, string>) => configProblems(env).join('\n');

describe('the subscriptions section', () => {
  it('charges 4 subscriptions at once by default', () => {
    expect(loadConfig({}).subscriptions).toEqual({ billingConcurrency: 4 });
  });

  it('reads SUBSCRIPTION_BILLING_CONCURRENCY', () => {
    expect(loadConfig({ SUBSCRIPTION_BILLING_CONCURRENCY: '12' }).subscriptions.billingConcurrency).toBe(12);
  });

  it('refuses a pool of none, of too many or of words', () => {
    for (const value of ['0', '33', 'many'])
      expect(problemsOf({ SUBSCRIPTION_BILLING_CONCURRENCY: value })).toContain('SUBSCRIPTION_BILLING_CONCURRENCY');
  });
});

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
      cardTokenKeys: undefined,
    });
  });

  it('reads CARD_TOKEN_KEYS, the first key first, and refuses a malformed list without quoting a key', () => {
    const first = Buffer.alloc(32, 1);
    const second = Buffer.alloc(32, 2);
    const keys = loadConfig({ CARD_TOKEN_KEYS: ` k2:${first.toString('base64')} , k1:${second.toString('base64url')} ` }).subscriptions
      .cardTokenKeys;
    expect(keys).toEqual([
      { id: 'k2', key: first },
      { id: 'k1', key: second },
    ]);
    const short = Buffer.alloc(16, 3).toString('base64');
    const refusals = {
      [`k1:${short}`]: 'entry 1 (key id "k1") must be a key of 32 bytes in base64',
      [`k1:${first.toString('base64')},k1:${second.toString('base64')}`]: 'entry 2 repeats the key id "k1"',
      [first.toString('base64')]: "entry 1 must be <id>:<key> with an id of 1 to 16 letters, digits or '-'",
      [`k.1:${first.toString('base64')}`]: 'entry 1 must be <id>:<key>',
      'k1:not base64!': 'entry 1 (key id "k1") must be a key of 32 bytes',
      ',': 'names no key',
    };
    for (const [value, problem] of Object.entries(refusals)) {
      const problems = problemsOf({ CARD_TOKEN_KEYS: value });
      expect(problems, value).toContain(`CARD_TOKEN_KEYS: ${problem}`);
      expect(problems).not.toContain(short);
    }
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

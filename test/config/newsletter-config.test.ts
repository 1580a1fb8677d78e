import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('newsletter configuration', () => {
  it('has working defaults', () => {
    expect(loadConfig({}).newsletter).toEqual({
      confirmTokenTtlMs: 2 * 86_400_000,
      confirmPath: '/newsletter/confirm',
      unsubscribePath: '/newsletter/unsubscribe',
      unsubscribeSecret: undefined,
      perIp: { max: 20, windowMs: 60_000 },
      perEmail: { max: 3, windowMs: 3_600_000 },
    });
  });

  it('reads every variable', () => {
    const secret = 's'.repeat(32);
    expect(
      loadConfig({
        NEWSLETTER_CONFIRM_TOKEN_TTL: '12h',
        NEWSLETTER_CONFIRM_PATH: '/uudiskiri/kinnita',
        NEWSLETTER_UNSUBSCRIBE_PATH: '/uudiskiri/loobu',
        NEWSLETTER_UNSUBSCRIBE_SECRET: secret,
        NEWSLETTER_RATE_LIMIT_PER_IP: '5/10s',
        NEWSLETTER_RATE_LIMIT_PER_EMAIL: '1/1d',
      }).newsletter,
    ).toEqual({
      confirmTokenTtlMs: 43_200_000,
      confirmPath: '/uudiskiri/kinnita',
      unsubscribePath: '/uudiskiri/loobu',
      unsubscribeSecret: secret,
      perIp: { max: 5, windowMs: 10_000 },
      perEmail: { max: 1, windowMs: 86_400_000 },
    });
  });

  it('refuses bad values by name, never showing the secret', () => {
    for (const bad of [
      { NEWSLETTER_CONFIRM_TOKEN_TTL: 'two days' },
      { NEWSLETTER_CONFIRM_PATH: 'no-slash' },
      { NEWSLETTER_UNSUBSCRIBE_PATH: 'https://elsewhere.example/x' },
      { NEWSLETTER_RATE_LIMIT_PER_IP: 'lots' },
      { NEWSLETTER_RATE_LIMIT_PER_EMAIL: '0/1m' },
    ]) {
      expect(() => loadConfig(bad), JSON.stringify(bad)).toThrow(ConfigError);
      expect(() => loadConfig(bad)).toThrow(Object.keys(bad)[0]!);
    }
    expect(() => loadConfig({ NEWSLETTER_UNSUBSCRIBE_SECRET: 'short-secret' })).toThrow(
      /NEWSLETTER_UNSUBSCRIBE_SECRET must be at least 32/,
    );
    try {
      loadConfig({ NEWSLETTER_UNSUBSCRIBE_SECRET: 'short-secret' });
    } catch (err) {
      expect((err as Error).message).not.toContain('short-secret');
    }
  });
});

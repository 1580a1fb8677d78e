import type { EnvReader } from '../../infra/env.js';
import type { JobsConfig } from '../../infra/jobs/jobs.config.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `newsletter` section of the configuration. */
export interface NewsletterSection {
  /** How long a confirmation link works after it is mailed. */
  confirmTokenTtlMs: number;
  /** Front-end pages (after the store's front-end URL): the confirmation link, and the unsubscribe link of a mail's text. */
  confirmPath: string;
  unsubscribePath: string;
  /** Key of the HMAC that signs unsubscribe links; when unset the service makes one and keeps it in the database. */
  unsubscribeSecret: string | undefined;
  /** Newsletter requests (subscribe, confirm, unsubscribe) from one client address. */
  perIp: RateLimit;
  /** Subscribe requests for one email address: each one mails a link, so this caps the mails an address gets. */
  perEmail: RateLimit;
}

/** What the newsletter module reads of the configuration, under the names src/config.ts gives them. */
export interface NewsletterConfig {
  newsletter: NewsletterSection;
  jobs: Pick<JobsConfig, 'maxAttempts'>;
  /** The unsubscribe header's link is this service's own URL: PUBLIC_URL + BASE_PATH. */
  orders: { publicUrl: string };
  basePath: string;
}

export function readNewsletterConfig(env: EnvReader): NewsletterSection {
  const unsubscribeSecret = env.optional('NEWSLETTER_UNSUBSCRIBE_SECRET');
  if (unsubscribeSecret !== undefined && unsubscribeSecret.length < 32)
    env.problem('NEWSLETTER_UNSUBSCRIBE_SECRET must be at least 32 characters');
  return {
    confirmTokenTtlMs: env.duration('NEWSLETTER_CONFIRM_TOKEN_TTL', '2d'),
    confirmPath: env.urlPath('NEWSLETTER_CONFIRM_PATH', '/newsletter/confirm'),
    unsubscribePath: env.urlPath('NEWSLETTER_UNSUBSCRIBE_PATH', '/newsletter/unsubscribe'),
    unsubscribeSecret,
    perIp: env.rateLimit('NEWSLETTER_RATE_LIMIT_PER_IP', '20/1m'),
    perEmail: env.rateLimit('NEWSLETTER_RATE_LIMIT_PER_EMAIL', '3/1h'),
  };
}

import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';
import { parseSealingKeys, type SealingKey } from '../../infra/sealed-secret.js';

/** How many charges a billing run has at the gateway at once unless told (SUBSCRIPTION_BILLING_CONCURRENCY). */
export const DEFAULT_BILLING_CONCURRENCY = 4;

/** The `subscriptions` section of the configuration. */
export interface SubscriptionsSection {
  /**
   * Subscriptions a billing run charges at once (SUBSCRIPTION_BILLING_CONCURRENCY): a small pool
   * overlaps the waits for the gateway; every charge is still claimed and reconciled on its own.
   */
  billingConcurrency: number;
  /**
   * Card checks (POST /subscription-credit-card) one client, and one client address, may start: each
   * declined check may be followed by another at once, which would let stolen cards be tried one by one.
   */
  cardChecks: { perClient: RateLimit; perIp: RateLimit };
  /**
   * Requests to subscribe or change plan (POST /subscription, PUT /subscription/{id}/plan, counted together) one
   * client may send (SUBSCRIBE_RATE_LIMIT_PER_CLIENT): without a trial a subscription, and an upgrade, charges the
   * saved card at once, and a declined one may be sent again at once.
   */
  subscribePerClient: RateLimit;
  /**
   * The keys saved cards' gateway tokens are sealed with (CARD_TOKEN_KEYS, the first seals); unset: a
   * key file beside the SQLite database, and a refusal to start on PostgreSQL (card-tokens.ts).
   */
  cardTokenKeys: SealingKey[] | undefined;
}

export function readSubscriptionsConfig(env: EnvReader): SubscriptionsSection {
  return {
    billingConcurrency: env.integer('SUBSCRIPTION_BILLING_CONCURRENCY', DEFAULT_BILLING_CONCURRENCY, 1, 32),
    cardChecks: {
      perClient: env.rateLimit('CARD_CHECK_RATE_LIMIT_PER_CLIENT', '10/1h'),
      perIp: env.rateLimit('CARD_CHECK_RATE_LIMIT_PER_IP', '30/1h'),
    },
    subscribePerClient: env.rateLimit('SUBSCRIBE_RATE_LIMIT_PER_CLIENT', '10/1h'),
    cardTokenKeys: readCardTokenKeys(env),
  };
}

function readCardTokenKeys(env: EnvReader): SealingKey[] | undefined {
  const text = env.optional('CARD_TOKEN_KEYS');
  if (text === undefined) return undefined;
  const parsed = parseSealingKeys(text);
  if ('keys' in parsed) return parsed.keys;
  env.problem(`CARD_TOKEN_KEYS: ${parsed.problem} (comma-separated <id>:<key>, the first seals)`);
  return undefined;
}

import type { EnvReader } from '../../infra/env.js';

/** How many charges a billing run has at the gateway at once unless told (SUBSCRIPTION_BILLING_CONCURRENCY). */
export const DEFAULT_BILLING_CONCURRENCY = 4;

/** The `subscriptions` section of the configuration. */
export interface SubscriptionsSection {
  /**
   * Subscriptions a billing run charges at once (SUBSCRIPTION_BILLING_CONCURRENCY): a small pool
   * overlaps the waits for the gateway; every charge is still claimed and reconciled on its own.
   */
  billingConcurrency: number;
}

export function readSubscriptionsConfig(env: EnvReader): SubscriptionsSection {
  return { billingConcurrency: env.integer('SUBSCRIPTION_BILLING_CONCURRENCY', DEFAULT_BILLING_CONCURRENCY, 1, 32) };
}

import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `tracking` section of the configuration: how many session actions one client may report. */
export interface TrackingSection {
  /** Session actions (reported or product-page views) from one client address, per process. */
  perAddress: RateLimit;
  /** Session actions of one session (the x-session-id token), per process. */
  perSession: RateLimit;
}

export function readTrackingConfig(env: EnvReader): TrackingSection {
  return {
    perAddress: env.rateLimit('SESSION_ACTION_RATE_LIMIT_PER_IP', '1200/1m'),
    perSession: env.rateLimit('SESSION_ACTION_RATE_LIMIT_PER_SESSION', '60/1m'),
  };
}

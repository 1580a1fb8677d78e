import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/** The `ctr` section of the configuration: how much of one browser's reporting is counted (per process, in memory). */
export interface CtrSection {
  /** Views (and, apart, clicks) of one banner counted from one session (x-session-id, else the client address). */
  perSessionBanner: RateLimit;
  /** Events counted from one client address, whatever the session (a bot that makes up session ids). */
  perAddress: RateLimit;
}

export function readCtrConfig(env: EnvReader): CtrSection {
  return {
    perSessionBanner: env.rateLimit('CTR_CAP_PER_SESSION_BANNER', '3/1m'),
    perAddress: env.rateLimit('CTR_CAP_PER_IP', '600/1m'),
  };
}

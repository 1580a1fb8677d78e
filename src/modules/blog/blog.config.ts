import type { EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

/**
 * The `blog` section of the configuration: what one anonymous client may repeat on the redirect and
 * QR code reads. All per process, in memory (token buckets), as the reads they guard write nothing.
 */
export interface BlogSection {
  /** Hits of one redirect counted from one client address; past it `/external-url` still answers, uncounted. */
  redirectHitsPerAddressRedirect: RateLimit;
  /** Redirect hits counted from one client address, whatever the redirect (an address may not walk them all). */
  redirectHitsPerAddress: RateLimit;
  /** QR codes one client address may have drawn; past it a 429 with Retry-After. */
  qrCodesPerAddress: RateLimit;
}

export function readBlogConfig(env: EnvReader): BlogSection {
  return {
    redirectHitsPerAddressRedirect: env.rateLimit('REDIRECT_HIT_CAP_PER_IP_REDIRECT', '3/1h'),
    redirectHitsPerAddress: env.rateLimit('REDIRECT_HIT_CAP_PER_IP', '300/1h'),
    qrCodesPerAddress: env.rateLimit('QR_CODE_RATE_LIMIT_PER_IP', '600/1m'),
  };
}

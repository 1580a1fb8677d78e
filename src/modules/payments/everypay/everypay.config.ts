import { isHttpUrl, type EnvReader } from '../../../infra/env.js';

// The `everypay` section: EveryPay (API v4) is on when its three credentials are set and off when
// none is. A partial set is a mistake worth stopping for (a shop that silently has no card payments).

/** The provider's live host; the API is under `/api/v4` (its test host is https://igw-demo.every-pay.com). */
export const EVERYPAY_LIVE_URL = 'https://pay.every-pay.eu';

export interface EveryPayConfig {
  /** Scheme and host of the provider (no trailing slash), e.g. https://pay.every-pay.eu. */
  apiUrl: string;
  apiUsername: string;
  apiSecret: string;
  /** The processing account payments are made to (e.g. EUR3D1), from the merchant portal. */
  accountName: string;
  /** How long one request to the provider may take before it counts as unavailable. */
  timeoutMs: number;
}

const CREDENTIALS = ['EVERYPAY_API_USERNAME', 'EVERYPAY_API_SECRET', 'EVERYPAY_ACCOUNT_NAME'] as const;

export function readEveryPayConfig(env: EnvReader): EveryPayConfig | undefined {
  const [apiUsername, apiSecret, accountName] = CREDENTIALS.map((name) => env.optional(name));
  const missing = CREDENTIALS.filter((name) => env.optional(name) === undefined);
  const apiUrl = env.read('EVERYPAY_API_URL', EVERYPAY_LIVE_URL).replace(/\/+$/, '');
  const timeoutMs = env.integer('EVERYPAY_TIMEOUT_MS', 10_000, 100, 120_000);
  if (missing.length === CREDENTIALS.length) return undefined;
  if (missing.length > 0) {
    env.problem(`EveryPay needs ${CREDENTIALS.join(', ')} together (or none of them); missing: ${missing.join(', ')}`);
    return undefined;
  }
  if (!isHttpUrl(apiUrl)) env.problem(`EVERYPAY_API_URL must be an http(s) URL, got "${apiUrl}"`);
  return { apiUrl, apiUsername: apiUsername!, apiSecret: apiSecret!, accountName: accountName!, timeoutMs };
}

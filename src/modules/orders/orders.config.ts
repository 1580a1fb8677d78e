import { isHttpUrl, readPublicUrl, type EnvReader } from '../../infra/env.js';
import type { RateLimit } from '../../infra/rate-limit.js';

// The `orders` section: where checkout sends the shopper, the order checksum's secret, the back
// office's order hand-off, and the worker's time limits on unpaid and stuck orders.

export interface BackofficeOrdersConfig {
  /** The back office's endpoint orders are posted to (signed JSON); none: orders wait in PENDING_NAV_PROCESSING. */
  url: string;
  /** HMAC-SHA256 key of the `X-Signature` header. */
  secret: string;
  timeoutMs: number;
}

export interface OrdersSection {
  /** Public base URL of this service: the gateways send shoppers and callbacks back to it. */
  publicUrl: string;
  /** ORDER_CHECKSUM_SECRET; when unset the service makes one and keeps it in the database. */
  checksumSecret: string | undefined;
  /** Front-end pages after the store's front-end URL: a finished order, and a payment that failed. */
  finishedPath: string;
  failedPath: string;
  /** The front-end's page of one order, which the buyer's order mail links to (with the order's checksum). */
  orderPagePath: string;
  /** The front-end's page of the downloads bought for someone else, which the receiver's order mail links to (with its key). */
  giftDownloadsPath: string;
  /** How long the receiver's key to those downloads works, from the order's processing. */
  giftDownloadTtlMs: number;
  backoffice: BackofficeOrdersConfig | undefined;
  /** An order unpaid this long is checked with the gateway and released when not paid. */
  unpaidAfterMs: number;
  /** An order in processing this long becomes FAILED. */
  stuckAfterMs: number;
  /** Checkouts an address may start (anonymous clients can repeat them). */
  checkoutRateLimit: RateLimit;
  /**
   * Gateway callbacks naming no payment of the gateway that an address may send (genuine ones are
   * never counted), and shoppers' returns from the gateway an address may send: each makes the
   * service ask the gateway.
   */
  callbackRateLimit: RateLimit;
  /** Callbacks naming one payment, from any address: a genuine payment's are a few. */
  callbacksPerPayment: RateLimit;
  /**
   * How long callbacks stop asking a gateway whose status look-up met an outage (a 5xx, no answer, its
   * 429): each is answered 503 at once, which the gateway retries, so a flood of forged callbacks during
   * an outage costs the failing gateway nothing.
   */
  callbackGatewayPauseMs: number;
  /** How often the worker sweeps orders (paid ones missed, hand-offs to retry, limits above). */
  sweepIntervalMs: number;
  /** How long after an order is completed its buyer is asked to rate what they bought; 0: never. */
  feedbackRequestAfterMs: number;
  /**
   * GET /admin/orders shows an order's change once it is this old: a change is stamped before it commits,
   * so one stamped earlier may commit after a later one that a walk's cursor has passed already.
   */
  feedSettleMs: number;
}

export function readOrdersConfig(env: EnvReader): OrdersSection {
  const publicUrl = readPublicUrl(env);
  const checksumSecret = env.optional('ORDER_CHECKSUM_SECRET');
  if (checksumSecret !== undefined && checksumSecret.length < 32) env.problem('ORDER_CHECKSUM_SECRET must be at least 32 characters');
  const url = env.optional('BACKOFFICE_ORDERS_URL');
  const secret = env.optional('BACKOFFICE_ORDERS_SECRET');
  if (url !== undefined && !isHttpUrl(url)) env.problem(`BACKOFFICE_ORDERS_URL must be an http(s) URL, got "${url}"`);
  if (url !== undefined && (secret === undefined || secret.length < 32))
    env.problem('BACKOFFICE_ORDERS_SECRET (at least 32 characters) is required with BACKOFFICE_ORDERS_URL');
  return {
    publicUrl,
    checksumSecret,
    finishedPath: env.urlPath('CHECKOUT_FINISHED_PATH', '/checkout/finished'),
    failedPath: env.urlPath('CHECKOUT_FAILED_PATH', '/checkout/failed'),
    orderPagePath: env.urlPath('ORDER_PAGE_PATH', '/order'),
    giftDownloadsPath: env.urlPath('GIFT_DOWNLOADS_PATH', '/gift-downloads'),
    giftDownloadTtlMs: env.duration('GIFT_DOWNLOAD_TTL', '365d'),
    backoffice:
      url !== undefined && secret !== undefined
        ? { url, secret, timeoutMs: env.integer('BACKOFFICE_ORDERS_TIMEOUT_MS', 10_000, 100, 120_000) }
        : undefined,
    unpaidAfterMs: env.duration('ORDER_UNPAID_AFTER', '30m'),
    stuckAfterMs: env.duration('ORDER_STUCK_AFTER', '8h'),
    sweepIntervalMs: env.interval('ORDER_SWEEP_INTERVAL', '2m'),
    feedbackRequestAfterMs: env.integer('FEEDBACK_REQUEST_AFTER_DAYS', 14, 0, 60) * 86_400_000,
    feedSettleMs: env.integer('ORDER_FEED_SETTLE_MS', 5_000, 0, 3_600_000),
    checkoutRateLimit: env.rateLimit('CHECKOUT_RATE_LIMIT_PER_IP', '30/1m'),
    callbackRateLimit: env.rateLimit('PAYMENT_CALLBACK_RATE_LIMIT_PER_IP', '300/1m'),
    callbacksPerPayment: env.rateLimit('PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT', '30/1h'),
    callbackGatewayPauseMs: env.duration('PAYMENT_CALLBACK_GATEWAY_PAUSE', '30s'),
  };
}

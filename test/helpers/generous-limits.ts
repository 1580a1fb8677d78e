// The environment of the walks that send thousands of requests from one address (the bad-input
// sweep, the credentialed walk): the operator's API document and the test gateway on, and every
// rate limit out of the way, so that their requests reach the code they probe instead of a 429.

const GENEROUS = '100000000/1m';

export const SWEEP_ENV: Readonly<Record<string, string>> = {
  API_DOCS: 'operator',
  TEST_GATEWAY: 'on',
  // Nothing the walks send changes a store's settings (the `store` command does): their store is
  // read as in production, once a second, instead of at every request as createTestApp sets it
  // (a third of the statements of the bad-input sweep on PostgreSQL).
  STORE_CACHE_TTL_MS: '1000',
  LINK_GUESS_RATE_LIMIT_PER_IP: GENEROUS,
  LOGIN_FAILURES_PER_ADDRESS: GENEROUS,
  LOGIN_FAILURES_PER_EMAIL: GENEROUS,
  BACK_IN_STOCK_RATE_LIMIT_PER_IP: GENEROUS,
  BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: GENEROUS,
  CHECKOUT_RATE_LIMIT_PER_IP: GENEROUS,
  PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: GENEROUS,
  DATA_EXPORT_RATE_LIMIT: GENEROUS,
  DATA_EXPORT_AUTH_FAILURES_PER_IP: GENEROUS,
  CTR_CAP_PER_SESSION_BANNER: GENEROUS,
  CTR_CAP_PER_IP: GENEROUS,
  REDIRECT_HIT_CAP_PER_IP_REDIRECT: GENEROUS,
  REDIRECT_HIT_CAP_PER_IP: GENEROUS,
  QR_CODE_RATE_LIMIT_PER_IP: GENEROUS,
  SUPPLIER_RATE_LIMIT: GENEROUS,
  SUPPLIER_RATE_LIMIT_PER_IP: GENEROUS,
  BASKET_RATE_LIMIT_PER_IP: GENEROUS,
  CONTACT_RATE_LIMIT_PER_IP: GENEROUS,
  CONTACT_RATE_LIMIT_PER_EMAIL: GENEROUS,
  NEWSLETTER_RATE_LIMIT_PER_IP: GENEROUS,
  NEWSLETTER_RATE_LIMIT_PER_EMAIL: GENEROUS,
  COMPANY_INVITATION_RATE_LIMIT: GENEROUS,
  SUBSCRIBE_RATE_LIMIT_PER_CLIENT: GENEROUS,
};

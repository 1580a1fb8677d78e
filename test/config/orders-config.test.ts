import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../helpers/config.js';

// The orders section: checkout's pages and limits, the order checksum secret, the back-office
// hand-off and the worker's time limits.

const problemsOf = (env: Record<string, string>) => configProblems(env).join('\n');

describe('the orders section', () => {
  it('has defaults', () => {
    expect(loadConfig({}).orders).toMatchObject({
      publicUrl: 'http://127.0.0.1:3000',
      checksumSecret: undefined,
      finishedPath: '/checkout/finished',
      failedPath: '/checkout/failed',
      orderPagePath: '/order',
      backoffice: undefined,
      unpaidAfterMs: 30 * 60_000,
      stuckAfterMs: 8 * 3_600_000,
      sweepIntervalMs: 2 * 60_000,
      checkoutRateLimit: { max: 30, windowMs: 60_000 },
      callbackRateLimit: { max: 300, windowMs: 60_000 },
      callbacksPerPayment: { max: 30, windowMs: 3_600_000 },
    });
  });

  it('reads every variable', () => {
    const secret = 's'.repeat(32);
    expect(
      loadConfig({
        PUBLIC_URL: 'https://api.shop.example/',
        ORDER_CHECKSUM_SECRET: secret,
        CHECKOUT_FINISHED_PATH: '/done',
        CHECKOUT_FAILED_PATH: '/oops',
        ORDER_PAGE_PATH: '/account/order',
        BACKOFFICE_ORDERS_URL: 'https://erp.example/orders',
        BACKOFFICE_ORDERS_SECRET: secret,
        BACKOFFICE_ORDERS_TIMEOUT_MS: '5000',
        ORDER_UNPAID_AFTER: '45m',
        ORDER_STUCK_AFTER: '12h',
        ORDER_SWEEP_INTERVAL: '30s',
        CHECKOUT_RATE_LIMIT_PER_IP: '10/1m',
        PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100/1m',
        PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT: '5/10m',
      }).orders,
    ).toMatchObject({
      publicUrl: 'https://api.shop.example',
      checksumSecret: secret,
      finishedPath: '/done',
      failedPath: '/oops',
      orderPagePath: '/account/order',
      backoffice: { url: 'https://erp.example/orders', secret, timeoutMs: 5000 },
      unpaidAfterMs: 45 * 60_000,
      stuckAfterMs: 12 * 3_600_000,
      sweepIntervalMs: 30_000,
      checkoutRateLimit: { max: 10 },
      callbackRateLimit: { max: 100 },
      callbacksPerPayment: { max: 5, windowMs: 600_000 },
    });
  });

  it('refuses bad values by name', () => {
    expect(problemsOf({ ORDER_CHECKSUM_SECRET: 'short' })).toContain('ORDER_CHECKSUM_SECRET');
    expect(problemsOf({ BACKOFFICE_ORDERS_URL: 'ftp://erp', BACKOFFICE_ORDERS_SECRET: 's'.repeat(32) })).toContain('BACKOFFICE_ORDERS_URL');
    expect(problemsOf({ BACKOFFICE_ORDERS_URL: 'https://erp.example' })).toContain('BACKOFFICE_ORDERS_SECRET');
    expect(problemsOf({ ORDER_STUCK_AFTER: 'soon' })).toContain('ORDER_STUCK_AFTER');
    expect(problemsOf({ ORDER_PAGE_PATH: 'https://shop.example/order' })).toContain('ORDER_PAGE_PATH');
    expect(problemsOf({ PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: 'lots' })).toContain('PAYMENT_CALLBACK_RATE_LIMIT_PER_IP');
    expect(problemsOf({ PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT: '0/1h' })).toContain('PAYMENT_CALLBACK_RATE_LIMIT_PER_PAYMENT');
  });
});

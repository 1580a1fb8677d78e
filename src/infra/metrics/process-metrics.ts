import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { namedCacheStats } from './cache-stats.js';
import { FastHistogram } from './fast-histogram.js';

// What this process counts, whatever app or database it serves: requests, SQL statements, mails,
// payments, cache lookups, and Node's own figures (event-loop lag, memory, handles). Lower layers
// and modules write here; /metrics (modules/metrics) adds the figures read from the database at
// scrape time. Nothing here is an HTTP concern, so the worker and the CLI may count too.

export const processMetrics = new Registry();

/** Latency of answered requests by method, route pattern (never the raw URL) and status; its _count is the request count. */
export const httpRequestSeconds = new FastHistogram(
  'storefront_http_request_duration_seconds',
  'Time to answer a request, by method, route pattern and status (the _count is the number of requests)',
  ['method', 'route', 'status'],
  [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
).registerIn(processMetrics);

/** How long requests waited for a turn of the event loop (http/turn-budget.ts): only those that did wait. */
export const httpTurnWaitSeconds = new FastHistogram(
  'storefront_http_turn_wait_seconds',
  'Time a request waited, before it started, for a turn of the event loop with CPU budget left (HTTP_TURN_BUDGET_MS); the _count is how many waited',
  [],
  [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
).registerIn(processMetrics);

/** Time of each SQL statement the database layer runs, by engine. */
export const dbStatementSeconds = new FastHistogram(
  'storefront_db_statement_duration_seconds',
  'Time of a SQL statement (on SQLite the synchronous call; on PostgreSQL the round trip), by engine',
  ['engine'],
  [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
).registerIn(processMetrics);

export const mailsTotal = new Counter({
  name: 'storefront_mails_total',
  help: "Mails handed to the mail server (or written to MAIL_DIR), by result: sent, failed (retried) or refused (every recipient's address refused for good, not retried)",
  labelNames: ['result'] as const,
  registers: [processMetrics],
});

/**
 * Every gateway status the shop applied, once its transaction committed. `applied_to` keeps orders apart
 * from subscriptions: renewals are charged with no shopper present and fail for reasons of their own
 * (expired cards), so counted in with orders they would move the checkout's payment figures.
 */
export const paymentsTotal = new Counter({
  name: 'storefront_payments_total',
  help:
    "Gateway statuses of payments the shop applied, by gateway, the payment's state, what it was applied to " +
    '(order; subscription_charge and saved_card, apart from orders: renewals are charged with no shopper present and fail ' +
    'for reasons of their own; none: no order, charge or card names it) and the outcome (applied: it moved its order, ' +
    'charge or card; duplicate: applied before; stale: it moved nothing, older than what was applied or still pending; ' +
    'mismatch: another sum, currency or account; unknown)',
  labelNames: ['gateway', 'state', 'applied_to', 'outcome'] as const,
  registers: [processMetrics],
});

export const subscriptionLateSettlesTotal = new Counter({
  name: 'storefront_subscription_late_settles_total',
  help: 'Subscription charges settled at the gateway after they were recorded failed or no longer wanted, by outcome: applied (paid the period or the upgrade), refund_due, refunded, refund_failed (left for a later try of its refund job or the next billing run), refund_refused (the gateway refused the refund for good: left to the operator, subscription charges --refund-refused)',
  labelNames: ['outcome'] as const,
  registers: [processMetrics],
});

/** Counted by each billing run (subscriptions' billDue) for every renewal it finds and leaves due; a renewal left so is counted again by the next run. */
export const subscriptionRenewalsCardUnopenedTotal = new Counter({
  name: 'storefront_subscription_renewals_card_unopened_total',
  help: "Subscription renewals a billing run left due, not charged, because their saved card's token opens with no card token key (CARD_TOKEN_KEYS or the key file): the operator's key to put right; each run counts the renewals it left",
  registers: [processMetrics],
});

new Counter({
  name: 'storefront_cache_lookups_total',
  help: 'Lookups of the per-process caches, by cache and result (hit or miss)',
  labelNames: ['cache', 'result'] as const,
  registers: [processMetrics],
  collect() {
    this.reset();
    for (const [cache, stats] of namedCacheStats()) {
      if (stats.hits > 0) this.inc({ cache, result: 'hit' }, stats.hits);
      if (stats.misses > 0) this.inc({ cache, result: 'miss' }, stats.misses);
    }
  },
});

new Gauge({
  name: 'storefront_cache_hit_ratio',
  help: 'Share of lookups of each per-process cache answered from the cache, since the process started',
  labelNames: ['cache'] as const,
  registers: [processMetrics],
  collect() {
    this.reset();
    for (const [cache, { hits, misses }] of namedCacheStats()) {
      if (hits + misses > 0) this.set({ cache }, hits / (hits + misses));
    }
  },
});

let nodeMetricsStarted = false;

/** Node's own figures (event-loop lag, heap, handles, CPU); started once, by whoever serves /metrics. */
export function startNodeMetrics(): void {
  if (nodeMetricsStarted) return;
  nodeMetricsStarted = true;
  collectDefaultMetrics({ register: processMetrics });
}

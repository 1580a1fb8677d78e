import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { withLease } from '../../infra/jobs/lease.js';
import { repeatOneAtATime } from '../../infra/repeat.js';
import type { Logger } from '../../infra/logger.js';
import type { GatewayName, Gateways, PaymentStatus } from '../payments/index.js';
import { inTransaction } from '../../db/after-commit.js';
import { applyChargeStatus } from './billing.apply.js';
import { billDue } from './billing.service.js';
import type { CardTokens } from './card-tokens.js';
import { findCardByPayment } from './cards.repository.js';
import { applyCardStatus, CARD_SAVING_REFERENCE } from './cards.service.js';
import { findChargeByGatewayPayment } from './charges.repository.js';
import { countPaymentStatus } from './payments-metric.js';

// The worker's side of subscriptions: the billing schedule, and what a gateway's callback about
// one of this module's payments (a card saved, a charge) does.

/**
 * The billing run as a worker starts and then every hour (so at least daily; infra/repeat.ts), under
 * a lease so worker processes take turns. Two runs at once would still charge nothing twice (billing.service.ts);
 * the lease only saves the work.
 */
export const BILLING_INTERVAL_MS = 3_600_000;
const LEASE_TTL_MS = 30 * 60_000;

export function scheduleSubscriptionBilling(
  deps: { db: Kysely<Database>; gateways: Gateways; cardTokens: CardTokens; log: Logger; concurrency?: number },
  intervalMs = BILLING_INTERVAL_MS,
  clock: Clock = systemClock,
): { stop(): Promise<void> } {
  return repeatOneAtATime(
    () => {
      const now = clock.now();
      return withLease(deps.db, 'subscription-billing', { ttlMs: LEASE_TTL_MS, now }, () =>
        billDue(deps.db, deps.gateways, now, { cardTokens: deps.cardTokens, concurrency: deps.concurrency, log: deps.log }),
      ).then(
        (run) => run.ran && deps.log.info(run.result, 'subscription billing run'),
        (err: unknown) => deps.log.error({ err }, 'subscription billing failed'),
      );
    },
    intervalMs,
    { fromStart: true },
  );
}

/**
 * Applies a gateway status (fetched from the gateway by the callback route, never taken from the
 * callback) to the card or charge it names: `applied`, or `mismatch` when it pays nothing there
 * (another sum, currency or processing account: no card saved, the charge recorded as mismatched and
 * left pending); null when it names none of this module's payments.
 */
export function subscriptionPayments(db: Kysely<Database>, cardTokens: CardTokens) {
  return async (gateway: GatewayName, status: PaymentStatus, now: number): Promise<'applied' | 'mismatch' | null> =>
    inTransaction(db, async (trx) => {
      const card = await findCardByPayment(trx, gateway, status.reference, status.orderReference);
      if (card) return (await applyCardStatus(trx, cardTokens, card, status, now)) === 'mismatch' ? 'mismatch' : 'applied';
      const charge = await findChargeByGatewayPayment(trx, gateway, status.reference, status.orderReference);
      if (charge) return (await applyChargeStatus(trx, charge, status, now)) === 'mismatch' ? 'mismatch' : 'applied';
      // A card-saving payment whose card is gone: removed by its owner, pruned (never confirmed within
      // a day, declined ones too) or erased. Nothing is left to apply, and the callback is answered as
      // the one that saw it last was; orders would call it an unknown payment (404).
      if (!CARD_SAVING_REFERENCE.test(status.orderReference)) return null;
      countPaymentStatus(trx, gateway, status, 'saved_card', 'card-gone');
      return 'applied';
    });
}

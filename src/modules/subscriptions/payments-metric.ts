import { afterCommit } from '../../db/after-commit.js';
import type { Db } from '../../db/database.js';
import { paymentsTotal } from '../../infra/metrics/process-metrics.js';
import type { PaymentStatus } from '../payments/index.js';

// The gateway statuses applied to subscription charges and saved cards, counted in
// storefront_payments_total as orders count theirs (once the transaction committed), in the orders'
// words of the outcome so that one label means one thing, and apart from orders (`applied_to`).

/** What a charge's or a card's status did (billing.apply.ts ChargeOutcome, cards.service.ts CardOutcome); `card-gone`: its card was removed or pruned. */
type SubscriptionOutcome =
  | 'settled'
  | 'failed'
  | 'refund-due'
  | 'taken-back'
  | 'part-refunded'
  | 'saved'
  | 'applied-already'
  | 'done-already'
  | 'pending'
  | 'mismatch'
  | 'card-gone';

const OUTCOME: Record<SubscriptionOutcome, 'applied' | 'duplicate' | 'stale' | 'mismatch'> = {
  settled: 'applied',
  failed: 'applied',
  'refund-due': 'applied',
  'taken-back': 'applied',
  'part-refunded': 'applied',
  saved: 'applied',
  'applied-already': 'duplicate',
  'done-already': 'duplicate',
  pending: 'stale',
  'card-gone': 'stale',
  mismatch: 'mismatch',
};

/** Counts `status` applied to a charge or a card once `trx` commits (it must be opened by inTransaction). */
export function countPaymentStatus(
  trx: Db,
  gateway: string,
  status: PaymentStatus,
  appliedTo: 'subscription_charge' | 'saved_card',
  outcome: SubscriptionOutcome,
): void {
  afterCommit(trx, () => paymentsTotal.inc({ gateway, state: status.state, applied_to: appliedTo, outcome: OUTCOME[outcome] }));
}

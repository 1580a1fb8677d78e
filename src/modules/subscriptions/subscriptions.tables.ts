// The subscriptions module's tables (migrations 2026_11_24_1400 and 1500, 2026_11_29_0800, 2026_11_30_0650 and 1900, 2026_12_01_1500 and 1700, 2026_12_08_1021, 2026_12_11_1200). Conventions of every table: src/db/schema.ts.
import type { Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

export type PlanKind = 'AUDIO_CREDITS' | 'AUDIO_UNLIMITED' | 'EBOOK_SHELF';
export type SubscriptionStatus = 'PENDING' | 'TRIAL' | 'ACTIVE' | 'FAILED' | 'LAPSED' | 'ENDED';
/**
 * PENDING until the gateway answers the card-saving payment; ACTIVE once it settled with a token;
 * DECLINED when it did not, kept (no card data, listed nowhere) until pruned with the pending ones,
 * so that a payment the bank approves after all still saves the card.
 */
export type CardState = 'PENDING' | 'ACTIVE' | 'DECLINED';
export type ChargePurpose = 'PERIOD' | 'UPGRADE';
/**
 * pending (written before the gateway call), settled, failed; refund_due: settled at the gateway when
 * the subscription no longer wanted it (a charge recorded failed that the bank approved after all,
 * once the subscription was cancelled, ended or paid otherwise), until its refund job (or a billing
 * run) has refunded it: refunded. refund_refused: the gateway refused that refund as asked and the
 * payment is still settled, or answered that it cannot refund the payment (unknown to it, failed,
 * abandoned or voided since); no job or run tries it again, the operator refunds it by hand
 * (`subscription mark-refunded`: refunded) or has it tried again (`retry-refund`: refund_due).
 */
export type ChargeState = 'pending' | 'settled' | 'failed' | 'refund_due' | 'refunded' | 'refund_refused';

export interface SubscriptionPlanTable {
  id: Generated<number>;
  code: string;
  kind: PlanKind;
  /** JSON: title per language. */
  titles: string;
  credits_per_month: number | null;
  shelf_size: number | null;
  price_cents: number;
  trial_days: number;
  /** Comma-separated store codes. */
  stores: string;
  position: number;
  is_active: BooleanColumn;
  created_at: number;
  updated_at: number;
}

/** A saved card: the gateway's token and what a person knows the card by. Never its number. */
export interface SubscriptionCardTable {
  id: Generated<number>;
  client_account_id: number;
  store_code: string;
  gateway: string;
  state: CardState;
  /** The shop's reference of the card-saving payment at the gateway. */
  order_reference: string;
  payment_reference: string | null;
  /**
   * JSON: the redirect form of the card-saving payment, once its gateway made it (migration
   * 2026_11_29_0800); what the same client asking again while the card is pending and recent is answered.
   */
  redirect: string | null;
  token: string | null;
  brand: string | null;
  last_four: string | null;
  expiry_month: number | null;
  expiry_year: number | null;
  is_default: BooleanColumn;
  created_at: number;
  updated_at: number;
}

export interface SubscriptionTable {
  id: Generated<number>;
  client_account_id: number;
  user_id: number;
  store_code: string;
  plan_id: number;
  status: SubscriptionStatus;
  live_key: string | null;
  card_id: number | null;
  /** The current period is a trial (nothing was charged for it). */
  trial: BooleanColumn;
  period_number: number;
  period_start: number;
  period_end: number;
  /** A downgrade waiting for the period's end. */
  next_plan_id: number | null;
  cancel_at_period_end: BooleanColumn;
  failed_attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  updated_at: number;
  ended_at: number | null;
}

export interface SubscriptionTrialUseTable {
  subject: string;
  plan_kind: PlanKind;
  subscription_id: number;
  created_at: number;
}

export interface SubscriptionChargeTable {
  id: Generated<number>;
  subscription_id: number;
  period_number: number;
  purpose: ChargePurpose;
  attempt: number;
  /** The plan the charge pays for (the new one for an upgrade or a renewal after a downgrade). */
  plan_id: number;
  /** An upgrade's: the plan it started from (migration 2026_11_30_0650); null for a period's charge and older upgrades. */
  from_plan_id: number | null;
  amount_cents: number;
  gateway: string;
  order_reference: string;
  idempotency_key: string;
  reference: string | null;
  state: ChargeState;
  /**
   * When the customer was told the charge is being processed (a 503 or 201 PENDING; migration 2026_11_30_0950), or
   * was found told nothing once their request must have answered (a request that died): its outcome is mailed.
   */
  pending_told_at: number | null;
  /**
   * When the customer was told the charge's outcome otherwise than by the mail of the transaction that finished it (their
   * request's answer, or a late settle's mail; migration 2026_11_30_1400): the request's deadline mails nothing about it.
   */
  outcome_told_at: number | null;
  /**
   * When the billing run last looked the pending charge up at its gateway (or sent it again; migration
   * 2026_11_30_1900); null: never. The least recently looked up go first, hourly in a charge's first day, then daily.
   */
  checked_at: number | null;
  /**
   * JSON (MismatchedPayment, charges.repository.ts): the last payment its gateway named for this charge that
   * does not pay it (another amount, currency or processing account; migration 2026_12_01_1500); null: none.
   */
  mismatch: string | null;
  /** When that payment was last seen. */
  mismatch_at: number | null;
  /** The gateway's last refusal of the charge's refund, as it worded it (migration 2026_12_01_1700); null: none. */
  refund_refusal: string | null;
  /** When the charge became refund_refused (its last refusal). */
  refund_refused_at: number | null;
  /**
   * When a billing run last tried to refund the refund_due charge (migration 2026_12_06_1030); null: never.
   * The least recently tried go first, so charges that cannot be refunded now do not keep the others waiting.
   */
  refund_tried_at: number | null;
  /**
   * The saved card the charge was made with (migration 2026_12_08_1021): a chargeback retires it (billing.apply.ts).
   * Null for charges made before, and for a renewal claimed without a card.
   */
  card_id: number | null;
  /**
   * What of the charge's payment went back, in cents (migration 2026_12_09_1020): a refund in the gateway's portal,
   * in part or whole, a chargeback (whole), the shop's own refund or one paid by hand. The sum of the charge's
   * subscription_charge_refund rows, written with each (charges.repository.ts recordRefunded).
   */
  refunded_cents: number;
  /**
   * When the charge settled as the payment it was for (migration 2026_12_11_1200): the month `subscription stats`
   * books it in, kept when it is refunded or charged back later. Null while pending, when failed, and for money
   * taken for nothing (refund_due from its settle on).
   */
  settled_at: number | null;
  created_at: number;
  updated_at: number;
}

/**
 * What went back of a charge's payment, one row a refund (migration 2026_12_11_1200): `subscription stats` takes it off
 * the month it was made in. `unknown`: the sum recorded before these rows, neither its kind nor its time known, or
 * one a process of the release before recorded (migration 2026_12_11_2200's trigger, at the database's clock).
 */
export type ChargeRefundKind = 'refund' | 'chargeback' | 'by_hand' | 'unknown';

export interface SubscriptionChargeRefundTable {
  id: Generated<number>;
  charge_id: number;
  kind: ChargeRefundKind;
  amount_cents: number;
  refunded_at: number;
}

/** An audiobook or e-book a subscription gave (takes.service.ts). */
export interface SubscriptionTakeTable {
  id: Generated<number>;
  subscription_id: number;
  client_account_id: number;
  store_code: string;
  product_id: number;
  kind: TakeKind;
  period_number: number;
  used_credit: BooleanColumn;
  /** `<subscription>:<product>` while held; null once an e-book is taken off the shelf. */
  held_key: string | null;
  created_at: number;
  returned_at: number | null;
}

export type TakeKind = 'AUDIOBOOK' | 'EBOOK';

export interface SubscriptionsTables {
  subscription_plan: SubscriptionPlanTable;
  subscription_card: SubscriptionCardTable;
  subscription: SubscriptionTable;
  subscription_trial_use: SubscriptionTrialUseTable;
  subscription_charge: SubscriptionChargeTable;
  subscription_charge_refund: SubscriptionChargeRefundTable;
  subscription_take: SubscriptionTakeTable;
}

import type { BooleanColumn } from '../../../db/schema.js';
// The test gateway's tables (migration 2026_11_24_0110): its payments and their refunds, kept as
// a payment service provider keeps them. Conventions of every table: src/db/schema.ts.

export type TestGatewayState = 'pending' | 'settled' | 'failed' | 'abandoned' | 'refunded';

export interface TestGatewayPaymentTable {
  /** The provider's id of the payment: random and unguessable, it is the only key to its page. */
  reference: string;
  order_reference: string;
  amount_cents: number;
  refunded_cents: number;
  currency: string;
  state: TestGatewayState;
  return_url: string;
  callback_url: string;
  /** The shop's key of the attempt: the same key never makes a second payment. */
  idempotency_key: string;
  customer_email: string;
  /** The payment saves the card (migration 2026_11_24_1401): once settled, its status carries a token. */
  request_token: BooleanColumn;
  /**
   * The saved card's token, random, issued with a payment that saves the card and shown once it settles
   * (migration 2026_12_01_1600); null for every other payment. A charge names it; one no row holds is refused.
   */
  card_token: string | null;
  created_at: number;
  updated_at: number;
}

export interface TestGatewayRefundTable {
  /** The shop's key of the refund: the same key never refunds twice. */
  idempotency_key: string;
  payment_reference: string;
  amount_cents: number;
  created_at: number;
}

export interface TestGatewayTables {
  test_gateway_payment: TestGatewayPaymentTable;
  test_gateway_refund: TestGatewayRefundTable;
}

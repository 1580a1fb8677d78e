// All of the test gateway's SQL: its payments and refunds (test-gateway.tables.ts).
import type { Selectable } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { TestGatewayPaymentTable, TestGatewayState } from './test-gateway.tables.js';

export type TestGatewayPayment = Selectable<TestGatewayPaymentTable>;

export type NewTestGatewayPayment = Omit<TestGatewayPayment, 'refunded_cents' | 'state' | 'updated_at' | 'request_token'> & {
  request_token: boolean;
};

/** Inserts the payment unless one with its idempotency key exists; answers the one that holds the key. */
export async function insertPaymentOnce(db: Db, payment: NewTestGatewayPayment): Promise<TestGatewayPayment> {
  await db
    .insertInto('test_gateway_payment')
    .values({ ...payment, refunded_cents: 0, state: 'pending', updated_at: payment.created_at })
    .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
    .execute();
  return db.selectFrom('test_gateway_payment').selectAll().where('idempotency_key', '=', payment.idempotency_key).executeTakeFirstOrThrow();
}

/** The latest payment made under an order reference. */
export async function findPaymentByOrderReference(db: Db, orderReference: string): Promise<TestGatewayPayment | undefined> {
  return db
    .selectFrom('test_gateway_payment')
    .selectAll()
    .where('order_reference', '=', orderReference)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

export async function findPayment(db: Db, reference: string): Promise<TestGatewayPayment | undefined> {
  return db.selectFrom('test_gateway_payment').selectAll().where('reference', '=', reference).executeTakeFirst();
}

/** The payment that saved the card of `token`. */
export async function findPaymentByCardToken(db: Db, token: string): Promise<TestGatewayPayment | undefined> {
  return db.selectFrom('test_gateway_payment').selectAll().where('card_token', '=', token).executeTakeFirst();
}

/**
 * Moves a pending payment to its final state in one statement; answers whether this call did it.
 * Two presses racing each other, or a press on a finished payment, find nothing to update.
 */
export async function finishPendingPayment(db: Db, reference: string, state: TestGatewayState, now: number): Promise<boolean> {
  const result = await db
    .updateTable('test_gateway_payment')
    .set({ state, updated_at: now })
    .where('reference', '=', reference)
    .where('state', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records the refund under its key; false when the key was used before (nothing written). */
export async function insertRefundOnce(
  db: Db,
  refund: { idempotency_key: string; payment_reference: string; amount_cents: number; created_at: number },
): Promise<boolean> {
  const result = await db
    .insertInto('test_gateway_refund')
    .values(refund)
    .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function findRefund(db: Db, idempotencyKey: string) {
  return db.selectFrom('test_gateway_refund').selectAll().where('idempotency_key', '=', idempotencyKey).executeTakeFirst();
}

/** Adds a refund to a settled (or partly refunded) payment when it fits in what is left; false otherwise. */
export async function addRefund(db: Db, reference: string, amountCents: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('test_gateway_payment')
    .set((eb) => ({ refunded_cents: eb('refunded_cents', '+', amountCents), state: 'refunded', updated_at: now }))
    .where('reference', '=', reference)
    .where('state', 'in', ['settled', 'refunded'])
    .where((eb) => eb(eb('refunded_cents', '+', amountCents), '<=', eb.ref('amount_cents')))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

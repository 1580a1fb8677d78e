import type { Db } from '../../src/db/database.js';
import type { GatewayName, PaymentGateway, PaymentStatus } from '../../src/modules/payments/index.js';
import { createProduct } from '../helpers/catalogue.js';

// Shared by the processing tests. The gateway is a small in-test PaymentGateway: the real
// adapters (EveryPay, the test gateway) are built on other branches; this one answers what a
// test tells it, and records the refunds it is asked for.

export interface FakeGateway extends PaymentGateway {
  statuses: Map<string, PaymentStatus>;
  refunds: Array<{ reference: string; amountCents: number; idempotencyKey: string }>;
  fetches: string[];
  /** Resolves the next fetchStatus only when `release()` is called (to hold a sweep mid-run). */
  holdNextFetch(): { release(): void };
}

export function fakeGateway(name: GatewayName = 'test'): FakeGateway {
  const statuses = new Map<string, PaymentStatus>();
  const refunds: FakeGateway['refunds'] = [];
  const fetches: string[] = [];
  let hold: Promise<void> | undefined;
  return {
    name,
    statuses,
    refunds,
    fetches,
    holdNextFetch() {
      let release = () => {};
      hold = new Promise<void>((resolve) => (release = resolve));
      return { release: () => release() };
    },
    async createPayment() {
      throw new Error('not used by these tests');
    },
    async fetchStatus(reference) {
      fetches.push(reference);
      if (hold) {
        const waiting = hold;
        hold = undefined;
        await waiting;
      }
      return statuses.get(reference) ?? null;
    },
    referenceOf: () => null,
    async refund(reference, amountCents, idempotencyKey) {
      refunds.push({ reference, amountCents, idempotencyKey });
      const current = statuses.get(reference);
      if (!current) throw new Error(`unknown reference ${reference}`);
      const next: PaymentStatus = { ...current, state: 'refunded', refundedCents: current.refundedCents + amountCents };
      statuses.set(reference, next);
      return next;
    },
  };
}

/** A book with `stock` copies on the web. */
export async function stockedBook(db: Db, stock: number, spec: { digital?: boolean } = {}) {
  const code = `B${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
  const id = await createProduct(db as never, { code, type: spec.digital ? 'EBOOK' : 'BOOK' });
  await db.updateTable('product').set({ web_stock: stock }).where('id', '=', id).execute();
  return { productId: id, productCode: code };
}

export async function productStock(db: Db, productId: number) {
  const row = await db
    .selectFrom('product')
    .select(['web_stock', 'reserved_quantity'])
    .where('id', '=', productId)
    .executeTakeFirstOrThrow();
  return { webStock: Number(row.web_stock), reserved: Number(row.reserved_quantity) };
}

export async function orderStatus(db: Db, orderId: number) {
  const row = await db.selectFrom('customer_order').select(['status', 'handed_off_at']).where('id', '=', orderId).executeTakeFirstOrThrow();
  return row.status;
}

export async function statusHistory(db: Db, orderId: number) {
  return db
    .selectFrom('order_status_change')
    .select(['from_status', 'to_status', 'cause'])
    .where('order_id', '=', orderId)
    .orderBy('id')
    .execute();
}

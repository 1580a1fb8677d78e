import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { CustomerKind, OrderStatus, PaymentState } from '../../src/modules/orders/index.js';
import { enqueueJob } from '../../src/infra/jobs/queue.js';

// Stands in for checkout until POST /checkout exists: writes an order with its lines straight to
// the tables, in a given status, holding its stock as checkout would (product.reserved_quantity)
// when the status holds stock, and queues its processing job when it is PENDING_PROCESSING (as
// the state machine does on entering it). Minimal on purpose: replace with checkout when it lands.

export interface FixtureLine {
  productId: number;
  productCode: string;
  quantity?: number;
  unitPriceCents?: number;
  digital?: boolean;
}

export interface FixtureOrder {
  status: OrderStatus;
  lines: FixtureLine[];
  store?: 'WEB' | 'WEB2';
  customerKind?: CustomerKind;
  clientAccountId?: number | null;
  language?: 'et' | 'en' | 'ru';
  billingEmail?: string;
  shippingEmail?: string;
  /** When its status changed (and it was created); now by default. */
  at?: number;
  payment?: { gateway: string; reference: string; state: PaymentState };
  /** Queue the order.process job (default: when PENDING_PROCESSING). */
  queueJob?: boolean;
}

const HOLDING: readonly OrderStatus[] = ['NEW', 'PENDING_PAYMENT', 'PENDING_PROCESSING', 'PROCESSING', 'PENDING_NAV_PROCESSING'];
let sequence = 0;

export async function insertOrder(db: Db, spec: FixtureOrder): Promise<{ id: number; code: string; totalCents: number }> {
  sequence += 1;
  const at = spec.at ?? Date.now();
  const store = spec.store ?? 'WEB';
  const lines = spec.lines.map((line, position) => {
    const quantity = line.quantity ?? 1;
    const unit = line.unitPriceCents ?? 1250;
    return { ...line, position, quantity, unit, total: unit * quantity };
  });
  const subtotal = lines.reduce((sum, line) => sum + line.total, 0);
  const delivery = 299;
  const total = subtotal + delivery;
  const holds = HOLDING.includes(spec.status);
  const contact = (email: string, name: string) => ({
    name,
    email,
    phone: '+3725551234',
    address: 'Rüütli 2',
    city: 'Tartu',
    postcode: '51007',
    country: 'EE',
  });
  const billing = contact(spec.billingEmail ?? `buyer${sequence}@example.ee`, 'Mari Maasikas');
  const shipping = contact(spec.shippingEmail ?? billing.email, 'Jaan Tamm');
  const row = await db
    .insertInto('customer_order')
    .values({
      code: null,
      store_code: store,
      client_account_id: spec.clientAccountId ?? null,
      customer_kind: spec.customerKind ?? (spec.clientAccountId ? 'SIMPLE' : 'GUEST'),
      language: spec.language ?? 'et',
      status: spec.status,
      status_changed_at: at,
      basket_id: null,
      basket_version_after: null,
      idempotency_scope: null,
      idempotency_key: null,
      request_hash: null,
      ...prefixed('shipping', shipping),
      ...prefixed('billing', billing),
      notes: '',
      newsletter: false,
      delivery_method_id: 1,
      delivery_method_code: 'PARCEL_MACHINE',
      delivery_kind: 'PARCEL_MACHINE',
      delivery_name: 'Pakiautomaat',
      parcel_machine_id: 7,
      parcel_machine_name: 'Tartu Lõunakeskus',
      delivery_shop_code: null,
      delivery_country: 'EE',
      delivery_cents: delivery,
      delivery_vat_rate: 24,
      payment_method: spec.payment ? 'ONLINE' : 'INVOICE',
      discount_code_id: null,
      discount_code: null,
      discount_cents: 0,
      subtotal_cents: subtotal,
      total_cents: total,
      vat_cents: Math.round(total * 0.09),
      vat_included: true,
      session_id: `session-${sequence}`,
      handed_off_at: null,
      nav_created_at: null,
      nav_status: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  const code = `${store === 'WEB' ? 'WT' : 'WN'}${String(id).padStart(6, '0')}`;
  await db.updateTable('customer_order').set({ code }).where('id', '=', id).execute();
  for (const line of lines) {
    await db
      .insertInto('order_line')
      .values({
        order_id: id,
        position: line.position,
        product_id: line.productId,
        product_code: line.productCode,
        product_type: line.digital ? 'EBOOK' : 'BOOK',
        title: `Raamat ${line.productCode}`,
        quantity: line.quantity,
        unit_price_cents: line.unit,
        regular_price_cents: line.unit,
        discount_cents: 0,
        total_cents: line.total,
        vat_rate: 9,
        is_digital: line.digital ?? false,
        stock_bound: !line.digital,
        reserved_quantity: holds && !line.digital ? line.quantity : 0,
      })
      .execute();
    if (holds && !line.digital)
      await db
        .updateTable('product')
        .set({ reserved_quantity: sql`reserved_quantity + ${line.quantity}` })
        .where('id', '=', line.productId)
        .execute();
  }
  await db
    .insertInto('order_status_change')
    .values({ order_id: id, from_status: null, to_status: spec.status, cause: 'test fixture', created_at: at })
    .execute();
  if (spec.payment)
    await db
      .insertInto('order_payment')
      .values({
        order_id: id,
        gateway: spec.payment.gateway,
        reference: spec.payment.reference,
        idempotency_key: `pay-${id}-${sequence}`,
        amount_cents: total,
        state: spec.payment.state,
        redirect: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
  if (spec.queueJob ?? spec.status === 'PENDING_PROCESSING')
    await enqueueJob(db, { type: 'order.process', payload: { orderId: id } }, { maxAttempts: 10, now: at });
  return { id, code, totalCents: total };
}

function prefixed<P extends 'shipping' | 'billing'>(prefix: P, contact: Record<string, string>) {
  return Object.fromEntries(Object.entries(contact).map(([key, value]) => [`${prefix}_${key}`, value])) as Record<
    `${P}_${'name' | 'email' | 'phone' | 'address' | 'city' | 'postcode' | 'country'}`,
    string
  >;
}

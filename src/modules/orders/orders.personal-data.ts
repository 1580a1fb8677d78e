import type { ExpressionBuilder } from 'kysely';
import { normaliseEmail } from '../../infra/email-address.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { toRfc3339 } from '../../db/time.js';
import { conflict } from '../../infra/domain-error.js';
import { accountIdsOf, ERASED_MARKER, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { localTime } from '../../infra/shop-time.js';
import { eraseSalesOfOrders } from '../data-export/index.js';
import { toWireMoney } from '../pricing/index.js';
import { HOLDING_STOCK, PAID } from './order-states.js';
import { updatedAtFrom } from './orders.repository.js';

// A person's orders with their lines: their client accounts' orders and the guest orders placed
// with their login email as the billing email (the address is theirs: they log in with it). The erasure keeps every order for accounting (amounts,
// lines, codes, dates, statuses, countries) and replaces the person in it: names, emails, phones,
// streets, cities, postcodes, notes and the session. It is refused while an order is still open
// (holding stock: unpaid, paid but not yet delivered; or waiting in a shop to be collected): its
// address is still needed to deliver it, its name to hand it over. E-books and audiobooks someone else bought
// for them (order_gift_download) are gift-downloads.personal-data.ts's.

/** The export holds at most this many orders, newest first; a note says when there were more. */
const ORDERS_CAP = 2_000;
const CHUNK = 500;

/** The subject's orders: of their accounts, or guest orders billed to their email. */
const ofSubject = (subject: PersonalDataSubject) => (eb: ExpressionBuilder<Database, 'customer_order'>) => {
  const ids = accountIdsOf(subject);
  const guest = eb.and([eb('client_account_id', 'is', null), eb('billing_email', '=', normaliseEmail(subject.email))]);
  return ids.length === 0 ? guest : eb.or([eb('client_account_id', 'in', ids), guest]);
};

const time = (ms: number | null) => (ms === null ? null : toRfc3339(Number(ms)));
const money = (cents: number) => toWireMoney(Number(cents));

async function exportOrders(db: Db, subject: PersonalDataSubject) {
  const orders = await db
    .selectFrom('customer_order')
    .selectAll()
    .where(ofSubject(subject))
    .orderBy('id', 'desc')
    .limit(ORDERS_CAP + 1)
    .execute();
  const truncated = orders.length > ORDERS_CAP;
  const kept = orders.slice(0, ORDERS_CAP);
  const lines = new Map<number, unknown[]>();
  for (let start = 0; start < kept.length; start += CHUNK) {
    const chunk = kept.slice(start, start + CHUNK).map((order) => order.id);
    const rows = await db
      .selectFrom('order_line')
      .selectAll()
      .where('order_id', 'in', chunk)
      .orderBy('order_id')
      .orderBy('position')
      .execute();
    for (const row of rows) {
      const list = lines.get(Number(row.order_id)) ?? [];
      list.push({
        productId: Number(row.product_id),
        productCode: row.product_code,
        title: row.title,
        quantity: row.quantity,
        unitPrice: money(row.unit_price_cents),
        discount: money(row.discount_cents),
        total: money(row.total_cents),
        vatRate: Number(row.vat_rate),
      });
      lines.set(Number(row.order_id), list);
    }
  }
  const contact = (order: (typeof kept)[number], kind: 'shipping' | 'billing') => ({
    name: order[`${kind}_name`],
    email: order[`${kind}_email`],
    phone: order[`${kind}_phone`],
    address: order[`${kind}_address`],
    city: order[`${kind}_city`],
    postcode: order[`${kind}_postcode`],
    countryNavCode: order[`${kind}_country`],
  });
  return {
    items: kept.map((order) => ({
      code: order.code,
      store: order.store_code,
      status: order.status,
      createdAt: time(order.created_at),
      statusChangedAt: time(order.status_changed_at),
      shipping: contact(order, 'shipping'),
      billing: contact(order, 'billing'),
      notes: order.notes,
      newsletter: Boolean(order.newsletter),
      delivery: { method: order.delivery_method_code, name: order.delivery_name, parcelMachine: order.parcel_machine_name },
      paymentMethod: order.payment_method,
      discountCode: order.discount_code,
      subtotal: money(order.subtotal_cents),
      deliveryPrice: money(order.delivery_cents),
      discount: money(order.discount_cents),
      total: money(order.total_cents),
      lines: lines.get(Number(order.id)) ?? [],
    })),
    truncated,
    ...(truncated ? { note: `Only the newest ${ORDERS_CAP} orders are included; ask customer service for the rest.` } : {}),
  };
}

async function refuseWhileOpen(trx: Db, subject: PersonalDataSubject, now: number) {
  const open = await trx
    .selectFrom('customer_order')
    .select('id')
    .where(ofSubject(subject))
    .where('status', 'in', HOLDING_STOCK)
    .limit(1)
    .executeTakeFirst();
  if (open) throw conflict('gdpr.openOrders');
  // A paid order the shop reported ready and that waits on its shelf (up to its last day) is not yet
  // delivered either, whatever its status (the back office may have completed it): the shop hands it
  // over to the name on it.
  const waiting = await trx
    .selectFrom('customer_order')
    .select('id')
    .where(ofSubject(subject))
    .where('status', 'in', PAID)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('order_pickup')
          .select('order_pickup.order_id')
          .whereRef('order_pickup.order_id', '=', 'customer_order.id')
          .where('order_pickup.ready_at', 'is not', null)
          .where('order_pickup.collected_at', 'is', null)
          .where('order_pickup.collect_by', '>=', localTime(now).date),
      ),
    )
    .limit(1)
    .executeTakeFirst();
  if (waiting) throw conflict('gdpr.openOrders');
}

async function stripOrders(trx: Db, subject: PersonalDataSubject, now: number) {
  const person = (kind: 'shipping' | 'billing') => ({
    [`${kind}_name`]: ERASED_MARKER,
    [`${kind}_email`]: subject.erasedEmail,
    [`${kind}_phone`]: ERASED_MARKER,
    [`${kind}_address`]: ERASED_MARKER,
    [`${kind}_city`]: ERASED_MARKER,
    [`${kind}_postcode`]: ERASED_MARKER,
  });
  // Their rows in the data export's sales history lose the city and the session too: a guest
  // order's row has no client code the sales history's own erasure could find it by.
  const orders = await trx.selectFrom('customer_order').select('code').where(ofSubject(subject)).where('code', 'is not', null).execute();
  for (let start = 0; start < orders.length; start += CHUNK)
    await eraseSalesOfOrders(
      trx,
      orders.slice(start, start + CHUNK).map((order) => order.code!),
      now,
    );
  await trx
    .updateTable('customer_order')
    // Marked changed: the back office's feed of changed orders hands them over again, so that its
    // copy loses the person too.
    .set({ ...person('shipping'), ...person('billing'), notes: '', session_id: null, updated_at: updatedAtFrom(now) })
    .where(ofSubject(subject))
    .execute();
}

/** The orders module's part of "your data": orders kept, the person taken out of them. */
export const ordersPersonalData: PersonalDataPart = {
  name: 'orders',
  export: exportOrders,
  refuseErasure: refuseWhileOpen,
  erase: stripOrders,
};

import type { Db } from '../../../db/database.js';
import { conflict, invalidField } from '../../../infra/domain-error.js';
import { addDays, instantOf, localTime } from '../../../infra/shop-time.js';
import { lockOrder } from '../orders.repository.js';
import { PAID } from '../order-states.js';
import { orderOf } from './admin-orders.service.js';
import { queuePickupMails } from './pickup-mail.js';
import { findPickup, PICKUP_KINDS, savePickup, type PickupRow } from './pickup.repository.js';
import type { OrderRow } from './processing.repository.js';

// A pickup order's hand-over in the shop, as the back office reports it: put out for the buyer (with
// the last day the shop keeps it), then collected. The first "ready" mails the buyer (and the
// receiver, who collects it, when that is someone else) and queues a reminder for the morning before
// the last day; a later "ready" with another last day moves the reminder and mails nothing new;
// "collected" ends it. A reminder names the report that queued it (the row's count of reports): one
// that a later report changed sends nothing, even when that report named the same day again. Each
// report holds the order's lock, so two at once, or one racing a cancellation, apply one after the other.

/** The longest a shop is asked to keep an order, from the day it is reported. */
export const MAX_KEEP_DAYS = 60;
/** The reminder's local time on the day before the last day: a shop's morning. */
const REMINDER_MINUTE = 10 * 60;
/** A reminder sooner than this after the report would repeat its mail: none is queued. */
const MIN_REMINDER_DELAY_MS = 86_400_000;

export interface PickupState {
  code: string;
  shopCode: string | null;
  readyAt: number | null;
  collectBy: string | null;
  collectedAt: number | null;
}

export async function reportReadyForPickup(trx: Db, code: string, collectBy: string, now: number): Promise<PickupState> {
  const order = await lockedPickupOrder(trx, code);
  const current = await findPickup(trx, order.id);
  if (current?.collected_at != null) throw conflict('orders.pickupCollected', { code: order.code! });
  // The same report again (a retry of one whose answer was lost, maybe after its day): nothing more to do.
  if (current?.ready_at != null && current.collect_by === collectBy) return stateOf(order, current);
  const today = localTime(now).date;
  if (collectBy < today) throw invalidField('collectBy', 'orders.collectByPast');
  if (collectBy > addDays(today, MAX_KEEP_DAYS)) throw invalidField('collectBy', 'orders.collectByFar', { days: MAX_KEEP_DAYS });

  const first = current?.ready_at == null;
  const row: PickupRow = {
    order_id: order.id,
    ready_at: current?.ready_at ?? now,
    collect_by: collectBy,
    collected_at: null,
    reports: (current?.reports ?? 0) + 1,
    updated_at: now,
  };
  await savePickup(trx, row);
  const mail = { collectBy, report: row.reports };
  if (first) await queuePickupMails(trx, order, { kind: 'ready', ...mail }, { now });
  const remindAt = reminderTime(collectBy);
  if (remindAt - now >= MIN_REMINDER_DELAY_MS) await queuePickupMails(trx, order, { kind: 'reminder', ...mail }, { now, runAt: remindAt });
  return stateOf(order, row);
}

/** The buyer has it. Reported again, the first report's time stays. */
export async function reportCollected(trx: Db, code: string, now: number): Promise<PickupState> {
  const order = await lockedPickupOrder(trx, code);
  const current = await findPickup(trx, order.id);
  if (current?.collected_at != null) return stateOf(order, current);
  const row: PickupRow = {
    order_id: order.id,
    ready_at: current?.ready_at ?? null,
    collect_by: current?.collect_by ?? null,
    collected_at: now,
    reports: (current?.reports ?? 0) + 1,
    updated_at: now,
  };
  await savePickup(trx, row);
  return stateOf(order, row);
}

/** 10:00 in Tallinn on the day before `collectBy`. */
export function reminderTime(collectBy: string): number {
  return instantOf(addDays(collectBy, -1), REMINDER_MINUTE);
}

/** The order by its code, locked: one collected in a shop, paid (or to be paid there), not cancelled. */
async function lockedPickupOrder(trx: Db, code: string): Promise<OrderRow> {
  const order = await orderOf(trx, code);
  const status = await lockOrder(trx, order.id);
  if (!PICKUP_KINDS.includes(order.delivery_kind)) throw conflict('orders.notPickup', { code: order.code!, delivery: order.delivery_name });
  if (status === undefined || !PAID.includes(status)) throw conflict('orders.pickupNotPaid', { code: order.code!, status: status ?? '' });
  return order;
}

function stateOf(order: OrderRow, row: PickupRow): PickupState {
  return {
    code: order.code!,
    shopCode: order.delivery_shop_code,
    readyAt: row.ready_at,
    collectBy: row.collect_by,
    collectedAt: row.collected_at,
  };
}

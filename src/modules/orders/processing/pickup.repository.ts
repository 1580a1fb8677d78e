import type { Selectable } from 'kysely';
import type { Db } from '../../../db/database.js';
import type { OrderPickupTable } from '../orders.tables.js';

// The order_pickup table's SQL (pickup.service.ts, pickup-mail.ts).

export type PickupRow = Selectable<OrderPickupTable>;

/** Delivery kinds whose order the buyer collects in a shop. */
export const PICKUP_KINDS: readonly string[] = ['SHOP_PICKUP', 'DRIVE_IN'];

export async function findPickup(db: Db, orderId: number): Promise<PickupRow | undefined> {
  const row = await db.selectFrom('order_pickup').selectAll().where('order_id', '=', orderId).executeTakeFirst();
  return (
    row && {
      order_id: Number(row.order_id),
      ready_at: row.ready_at === null ? null : Number(row.ready_at),
      collect_by: row.collect_by,
      collected_at: row.collected_at === null ? null : Number(row.collected_at),
      reports: Number(row.reports),
      updated_at: Number(row.updated_at),
    }
  );
}

/** Writes the order's hand-over as `row` says; the caller holds the order's lock (lockOrder). */
export async function savePickup(db: Db, row: PickupRow): Promise<void> {
  const changes = {
    ready_at: row.ready_at,
    collect_by: row.collect_by,
    collected_at: row.collected_at,
    reports: row.reports,
    updated_at: row.updated_at,
  };
  await db
    .insertInto('order_pickup')
    .values(row)
    .onConflict((oc) => oc.column('order_id').doUpdateSet(changes))
    .execute();
}

import { sql } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';

export interface CtrCount {
  storeCode: string;
  bannerId: number;
  placement: string;
  hourStart: number;
  views: number;
  clicks: number;
}

/** The table's key order: every writer's upsert takes the rows' locks in it. */
function byKey(a: CtrCount, b: CtrCount): number {
  if (a.storeCode !== b.storeCode) return a.storeCode < b.storeCode ? -1 : 1;
  if (a.bannerId !== b.bannerId) return a.bannerId - b.bannerId;
  if (a.placement !== b.placement) return a.placement < b.placement ? -1 : 1;
  return a.hourStart - b.hourStart;
}

/**
 * Adds counts to their hours' rows in one statement (the batch holds each key once), in the key's
 * order. Every API process writes its batch about once a second and the popular banners' rows are in
 * each: an upsert locks its rows in the order of its values, and two in other orders (each process's
 * order is that of its traffic) deadlocked on PostgreSQL, which ended one and lost its counts.
 */
export async function addCtrCounts(db: Db, counts: readonly CtrCount[]): Promise<void> {
  if (counts.length === 0) return;
  await db
    .insertInto('banner_ctr')
    .values(
      [...counts].sort(byKey).map((count) => ({
        store_code: count.storeCode,
        banner_id: count.bannerId,
        placement: count.placement,
        hour_start: count.hourStart,
        views: count.views,
        clicks: count.clicks,
      })),
    )
    .onConflict((conflict) =>
      conflict.columns(['store_code', 'banner_id', 'placement', 'hour_start']).doUpdateSet({
        views: sql<number>`banner_ctr.views + excluded.views`,
        clicks: sql<number>`banner_ctr.clicks + excluded.clicks`,
      }),
    )
    .execute();
}

export interface CtrReportFilter {
  from: number;
  to: number;
  storeCode?: string;
}

export interface CtrReportRow {
  storeCode: string;
  bannerId: number;
  placement: string;
  views: number;
  clicks: number;
}

function reportBase(db: Db, filter: CtrReportFilter) {
  let query = db.selectFrom('banner_ctr').where('hour_start', '>=', filter.from).where('hour_start', '<', filter.to);
  if (filter.storeCode !== undefined) query = query.where('store_code', '=', filter.storeCode);
  return query;
}

/** One page of the period's sums per store, banner and placement, most viewed first, and how many there are. */
export async function ctrReport(
  db: Db,
  filter: CtrReportFilter,
  page: { offset: number; limit: number },
): Promise<{ rows: CtrReportRow[]; total: number }> {
  const rows = await reportBase(db, filter)
    .select(['store_code', 'banner_id', 'placement'])
    .select((eb) => [eb.fn.sum<number>('views').as('views'), eb.fn.sum<number>('clicks').as('clicks')])
    .groupBy(['store_code', 'banner_id', 'placement'])
    .orderBy('views', 'desc')
    .orderBy('store_code')
    .orderBy('banner_id')
    .orderBy('placement')
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  const counted = await db
    .selectFrom(
      reportBase(db, filter).select(['store_code', 'banner_id', 'placement']).groupBy(['store_code', 'banner_id', 'placement']).as('g'),
    )
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirstOrThrow();
  return {
    rows: rows.map((row) => ({
      storeCode: row.store_code,
      bannerId: Number(row.banner_id),
      placement: row.placement,
      views: Number(row.views),
      clicks: Number(row.clicks),
    })),
    total: Number(counted.total),
  };
}

/** Deletes the hours that start before `before` (Unix ms), in batches from the oldest (banner_ctr_hour_idx); returns how many went. */
export async function pruneCtrHours(db: Db, before: number): Promise<number> {
  return deleteInBatches(db, 'banner_ctr', {
    key: ['store_code', 'banner_id', 'placement', 'hour_start'],
    where: (eb) => eb('hour_start', '<', before),
    orderBy: 'hour_start',
  });
}

import type { Db } from '../../db/database.js';
import { invalidField } from '../../infra/domain-error.js';
import type { PruneTask } from '../../infra/maintenance.js';
import { isStoreCode } from '../store/index.js';
import { ctrReport, pruneCtrHours } from './ctr.repository.js';

const HOUR_MS = 3_600_000;

export interface CtrReportInput {
  from: string;
  to: string;
  store?: string;
  page: { offset: number; perPage: number };
  /** The request's time: hours before the retention (CTR_RETENTION_DAYS) are gone. */
  now: number;
}

export interface CtrReportLine {
  store: string;
  bannerId: number;
  placement: string;
  views: number;
  clicks: number;
  rate: number;
}

/** The longest period one report covers. */
export const MAX_REPORT_DAYS = 366;
const DAY_MS = 86_400_000;

/**
 * How long an hour's counts are kept. The report caps a period's length, not how far back it
 * reaches, so the rule keeps what the longest report needs to be compared with the same period a
 * year before (two spans, 732 days), plus a month in which that comparison may still be made
 * (763 days). Older hours are deleted by the hourly maintenance (bannerCtrPruning): nothing deleted
 * them, and the table gains a row per banner, placement and hour with traffic.
 */
export const CTR_RETENTION_DAYS = 2 * MAX_REPORT_DAYS + 31;

/** The hourly maintenance's task for banner statistics: hours older than CTR_RETENTION_DAYS go. */
export const bannerCtrPruning: PruneTask = (db, now) => pruneCtrHours(db, now - CTR_RETENTION_DAYS * DAY_MS);

/**
 * The operators' report: views, clicks and their rate per store, banner and placement over whole
 * hours, from the hour `from` falls in to the hour `to` falls in (an hour start as `to` ends before it).
 */
export async function bannerCtrReport(db: Db, input: CtrReportInput): Promise<{ lines: CtrReportLine[]; total: number }> {
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  if (to < from) throw invalidField('to', 'ctr.toBeforeFrom');
  // Each hour of the range is a row per banner and placement to add up: a range of years is a long read.
  if (to - from > MAX_REPORT_DAYS * DAY_MS) throw invalidField('to', 'ctr.rangeTooLong', { days: MAX_REPORT_DAYS });
  // Deleted hours would read as no traffic: a report that reaches past the retention says so instead.
  // The period counts from the start of the hour `from` falls in, and the maintenance deletes an hour
  // that started before the cut-off: that hour start is what must be kept.
  if (from - (from % HOUR_MS) < input.now - CTR_RETENTION_DAYS * DAY_MS)
    throw invalidField('from', 'ctr.beforeRetention', { days: CTR_RETENTION_DAYS });
  if (input.store !== undefined && !isStoreCode(input.store)) throw invalidField('store', 'ctr.unknownStore');
  const filter = {
    from: from - (from % HOUR_MS),
    to: Math.ceil(to / HOUR_MS) * HOUR_MS,
    ...(input.store !== undefined && { storeCode: input.store }),
  };
  const { rows, total } = await ctrReport(db, filter, { offset: input.page.offset, limit: input.page.perPage });
  return {
    lines: rows.map((row) => ({
      store: row.storeCode,
      bannerId: row.bannerId,
      placement: row.placement,
      views: row.views,
      clicks: row.clicks,
      rate: row.views === 0 ? 0 : Math.round((row.clicks / row.views) * 10_000) / 10_000,
    })),
    total,
  };
}

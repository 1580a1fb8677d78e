import { badRequest } from '../../infra/domain-error.js';
import { translate, type Language } from '../../i18n/index.js';

/**
 * The filters of a request as Unix ms, all bounds inclusive; absent bounds are open. `from`..`to`
 * is the creation window (createdFrom, createdTo); `updatedFrom`..`updatedTo` the window of the
 * row's last change, which a collection that keeps one takes (ExportCollection.filters).
 */
export interface ExportWindow {
  from?: number;
  to?: number;
  updatedFrom?: number;
  updatedTo?: number;
}

/** Which filters a collection takes. */
export interface ExportFilters {
  created: boolean;
  updated: boolean;
}

/**
 * Whether a read of the window goes in the order of the rows' last change (updated_at, id) rather
 * than of their creation: when it has an update bound. Its index range is then the update window.
 */
export function byUpdate(window: ExportWindow): boolean {
  return window.updatedFrom !== undefined || window.updatedTo !== undefined;
}

const Y_M_D_H_I_S = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;

/** `Y-m-d H:i:s` in UTC as Unix ms, or undefined for a malformed or impossible value (2026-02-30, 24:00:00). */
export function parseYmdHis(value: string): number | undefined {
  const match = Y_M_D_H_I_S.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  // Date.UTC reads a year from 0 to 99 as 1900 to 1999, so 0001-01-01 (a start "from the
  // beginning") came back as another year and was refused as malformed: the year is set on its own.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  const ms = date.getTime();
  const back = new Date(ms);
  const same =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  return same ? ms : undefined;
}

type WindowParameter = 'createdFrom' | 'createdTo' | 'updatedFrom' | 'updatedTo';

/**
 * The window of a request, from the parameters the collection takes (others are ignored, as any
 * unknown parameter is). A `...To` bound names a second and includes all of it (rows are stored with
 * millisecond precision), so `createdTo=... 10:15:00` takes a row created at 10:15:00.999.
 * A malformed bound is a 400 naming the parameter.
 */
export function exportWindow(query: Partial<Record<WindowParameter, string>>, filters: ExportFilters, language: Language): ExportWindow {
  const bound = (field: WindowParameter, taken: boolean): number | undefined => {
    const raw = taken ? query[field] : undefined;
    if (raw === undefined) return undefined;
    const ms = parseYmdHis(raw);
    if (ms === undefined) throw badRequest('error.badParameter', { field, reason: translate(language, 'dataExport.dateTime') });
    return ms;
  };
  const endOf = (ms: number | undefined) => (ms === undefined ? undefined : ms + 999);
  const window: ExportWindow = {};
  const from = bound('createdFrom', filters.created);
  const to = endOf(bound('createdTo', filters.created));
  const updatedFrom = bound('updatedFrom', filters.updated);
  const updatedTo = endOf(bound('updatedTo', filters.updated));
  if (from !== undefined) window.from = from;
  if (to !== undefined) window.to = to;
  if (updatedFrom !== undefined) window.updatedFrom = updatedFrom;
  if (updatedTo !== undefined) window.updatedTo = updatedTo;
  return window;
}

/**
 * The window as far as a read may show it now: rows created (or, read by update, changed) after
 * `until` are left for a later read. A row is stamped before it is written (a session action when
 * its request starts, an account before its password hash, a batch of imported products before the
 * batch commits, a profile edit when its request starts), so the newest few seconds may still gain
 * rows in the middle; cutting them off keeps every page served complete for good (see
 * DATA_EXPORT_SETTLE_MS).
 */
export function settledPart(window: ExportWindow, until: number): ExportWindow {
  if (byUpdate(window)) return { ...window, updatedTo: window.updatedTo === undefined ? until : Math.min(window.updatedTo, until) };
  return { ...window, to: window.to === undefined ? until : Math.min(window.to, until) };
}

/**
 * How long a read of `window` at `now` waits before it reads (ms). A window that has ended, or ends
 * within the current second, is answered whole once it has settled: a partner's job that runs on the
 * hour and asks for the hour just ended (createdTo 11:59:59 at 12:00:00) asks from 12:00:00 on the
 * next time, so the seconds `settledPart` cut off its answer were never read. The wait is at most
 * DATA_EXPORT_SETTLE_MS and a second. A window open at its end, or ending later, is cut as ever: its
 * newest rows come in a later read of it. Read by update, the update window's end counts.
 */
export function settleWait(window: ExportWindow, now: number, settleMs: number): number {
  const end = endedBy(window, now);
  return end === undefined ? 0 : Math.max(0, end - (now - settleMs));
}

/** The end of a window read at `now` that is answered whole (it has ended, or ends within the second), else undefined. */
export function endedBy(window: ExportWindow, now: number): number | undefined {
  const end = byUpdate(window) ? window.updatedTo : window.to;
  return end === undefined || end > now + 999 ? undefined : end;
}

/** A stable key of the window, for the caches of counts and page boundaries. */
export function windowKey(window: ExportWindow): string {
  const key = `${window.from ?? ''}..${window.to ?? ''}`;
  return byUpdate(window) ? `${key}|updated ${window.updatedFrom ?? ''}..${window.updatedTo ?? ''}` : key;
}

// Wall-clock time in Europe/Tallinn (EET, UTC+2; EEST, UTC+3 from the last Sunday of March 03:00
// to the last Sunday of October 04:00), where the shops are. Shop hours are written in local time, and
// a date the shop gives alone (a gift card valid through it) is a day there.

export const SHOP_TIME_ZONE = 'Europe/Tallinn';

const FORMAT = new Intl.DateTimeFormat('en-CA', {
  timeZone: SHOP_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

export interface LocalTime {
  /** YYYY-MM-DD */
  date: string;
  /** Minutes after local midnight. */
  minute: number;
}

function parts(ms: number): Record<string, number> {
  const result: Record<string, number> = {};
  for (const part of FORMAT.formatToParts(new Date(ms))) if (part.type !== 'literal') result[part.type] = Number(part.value);
  return result;
}

/** The instant's local wall-clock time, as if it were UTC, minus the instant: the zone's offset. */
function offsetAt(ms: number): number {
  const p = parts(ms);
  return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - Math.floor(ms / 1000) * 1000;
}

export function localTime(ms: number): LocalTime {
  const p = parts(ms);
  const date = `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
  return { date, minute: p.hour! * 60 + p.minute! };
}

/**
 * The instant of a local date and minute (1440 is the next midnight). A time in the spring-forward
 * gap (03:00-04:00) comes out an hour later, as a wall clock would show it; a time in the repeated
 * autumn hour is its first occurrence.
 */
export function instantOf(date: string, minute: number): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const asUtc = Date.UTC(year, month - 1, day) + minute * 60_000;
  // The zone's offsets half a day before and after: the same unless a change falls in between.
  const before = asUtc - offsetAt(asUtc - 43_200_000);
  const after = asUtc - offsetAt(asUtc + 43_200_000);
  const shows = (ms: number) => {
    const local = localTime(ms);
    return local.date === date && local.minute === minute;
  };
  const valid = [before, after].filter(shows);
  // In the gap neither shows it: the offset before the change moves it forward by the gap.
  return valid.length > 0 ? Math.min(...valid) : before;
}

/**
 * The local date `days` after `date`. Written from its parts, not cut from toISOString(), which gives a year
 * past 9999 as `+010000`: the day after 9999-12-31 (a gift card's "never expires") then read as no date.
 */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(year, month - 1, day + days));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${String(next.getUTCFullYear()).padStart(4, '0')}-${two(next.getUTCMonth() + 1)}-${two(next.getUTCDate())}`;
}

/** The end of a local date (exclusive): the next local midnight, 2027-12-31 -> 2027-12-31T22:00:00Z. */
export function endOfLocalDay(date: string): number {
  return instantOf(addDays(date, 1), 0);
}

/**
 * The local date of the last moment before an (exclusive) end: the day something ending then can still be
 * used on, as a mail names it (2027-12-31T22:00:00Z -> 2027-12-31; 2027-01-04T22:30:00Z -> 2027-01-05).
 */
export function lastLocalDay(end: number): string {
  return localTime(end - 1).date;
}

/** ISO weekday of a local date: 1 = Monday ... 7 = Sunday. */
export function weekdayOf(date: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return ((new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7) + 1;
}

/** 600 -> "10:00", 1440 -> "24:00". */
export function clockText(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

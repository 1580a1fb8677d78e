// The one place that converts between stored timestamps (Unix milliseconds, UTC) and the wire.

const DAY_MS = 86_400_000;
// Days from 0000-03-01 to 1970-01-01, for the civil-from-days conversion below.
const EPOCH_SHIFT = 719_468;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const three = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * Unix ms as UTC date and time text, the same as `Date#toISOString` (to the millisecond, or to the
 * second with `'s'`) and several times faster: lists write one or two per row (a wishlist page 50,
 * an export a million), and building a Date and its ISO string cost ~2 µs a call on a loaded
 * machine. Integer arithmetic only (H. Hinnant's days-to-civil algorithm) for years 1000 to 9999;
 * anything else goes through Date, which throws a RangeError for an impossible date.
 */
export function toIsoTimestamp(ms: number, precision: 'ms' | 's' = 'ms'): string {
  const days = Math.floor(ms / DAY_MS);
  const date = civilDate(days);
  if (date === undefined) {
    const text = new Date(ms).toISOString();
    return precision === 'ms' ? text : text.replace(/\.\d{3}Z$/, 'Z');
  }
  let rest = ms - days * DAY_MS;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const time = `${date}T${two(hours)}:${two(minutes)}:${two(seconds)}`;
  return precision === 'ms' ? `${time}.${three(rest - seconds * 1000)}Z` : `${time}Z`;
}

/** `new Date(ms).toISOString().slice(0, 10)`: the UTC calendar date, YYYY-MM-DD (see toIsoTimestamp). */
export function toIsoDate(ms: number): string {
  return civilDate(Math.floor(ms / DAY_MS)) ?? new Date(ms).toISOString().slice(0, 10);
}

/** YYYY-MM-DD of a day counted from 1970-01-01; undefined outside the years 1000 to 9999 (or not a number). */
function civilDate(days: number): string | undefined {
  const z = days + EPOCH_SHIFT;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (!(year >= 1000 && year <= 9999)) return undefined;
  return `${year}-${two(month)}-${two(day)}`;
}

/** RFC 3339 in UTC, second precision: 2026-11-22T10:15:00Z. */
export function toRfc3339(ms: number): string {
  return toIsoTimestamp(ms, 's');
}

/** Unix seconds, as in the `action-time` header. */
export function toUnixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

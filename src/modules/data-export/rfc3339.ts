const DAY_MS = 86_400_000;
// Days from 0000-03-01 to 1970-01-01, for the civil-from-days conversion below.
const EPOCH_SHIFT = 719_468;

const two = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * Unix ms as RFC 3339 in UTC to the second (`2026-11-22T10:15:00Z`): the same text as db/time.ts's
 * toRfc3339, several times faster, since an export formats two per row and a million rows per
 * crawl. Integer arithmetic only (H. Hinnant's days-to-civil algorithm) for years 1000 to 9999;
 * anything else goes through Date, which throws a RangeError for an impossible date as before.
 */
export function rfc3339(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
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
  if (year < 1000 || year > 9999 || !Number.isFinite(ms)) return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  let seconds = Math.floor((ms - days * DAY_MS) / 1000);
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  return `${year}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}Z`;
}

const TWO_DIGITS = Array.from({ length: 32 }, (_, n) => String(n).padStart(2, '0'));
const DAY_MS = 86_400_000;
/** 0001-01-01 and 9999-12-31: the years toISOString writes with four digits. */
const FIRST_MS = -62_135_596_800_000;
const LAST_MS = 253_402_214_400_000;

/**
 * `new Date(ms).toISOString().slice(0, 10)`: the UTC calendar date, YYYY-MM-DD. A list of 50 cards
 * wrote 50 of them, and building a Date and its ISO string cost several times this arithmetic
 * (Howard Hinnant's days-to-civil algorithm).
 */
export function isoDate(ms: number): string {
  if (!(ms >= FIRST_MS && ms < LAST_MS)) return new Date(ms).toISOString().slice(0, 10);
  const z = Math.floor(ms / DAY_MS) + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${TWO_DIGITS[month]}-${TWO_DIGITS[day]}`;
}

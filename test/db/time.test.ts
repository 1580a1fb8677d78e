import { describe, expect, it } from 'vitest';
import { toIsoDate, toIsoTimestamp, toRfc3339 } from '../../src/db/time.js';

const samples = [
  0,
  -1,
  999,
  Date.UTC(1969, 11, 31, 23, 59, 59, 999),
  Date.UTC(1900, 1, 28),
  Date.UTC(1900, 2, 1),
  Date.UTC(2000, 1, 29, 12, 0, 0, 5),
  Date.UTC(2024, 1, 29, 23, 59, 59, 999),
  Date.UTC(2100, 2, 1, 0, 0, 0, 50),
  Date.UTC(1000, 0, 1),
  Date.UTC(999, 11, 31, 23, 59, 59, 999),
  Date.UTC(9999, 11, 31, 23, 59, 59, 999),
  Date.UTC(10000, 0, 1),
  Date.UTC(-1, 5, 1),
];

describe('timestamps as text', () => {
  it('write what toISOString writes, across leap years, centuries, times of day and outside the fast years', () => {
    // Every day of four centuries, at a time of day that differs from day to day.
    for (let ms = Date.UTC(1800, 0, 1); ms < Date.UTC(2200, 0, 1); ms += 86_400_000 + 3_601_007) samples.push(ms);
    // Compared as plain strings and asserted once: an expect() per sample was most of the file's 10 s.
    const wrong = samples.filter((ms) => {
      const iso = new Date(ms).toISOString();
      return toIsoTimestamp(ms) !== iso || toRfc3339(ms) !== iso.replace(/\.\d{3}Z$/, 'Z') || toIsoDate(ms) !== iso.slice(0, 10);
    });
    expect(wrong.map((ms) => [ms, toIsoTimestamp(ms), toRfc3339(ms), toIsoDate(ms)])).toEqual([]);
  });

  it('throws a RangeError for an impossible date, as Date does', () => {
    expect(() => toIsoTimestamp(9e15)).toThrow(RangeError);
    expect(() => toRfc3339(9e15)).toThrow(RangeError);
    expect(() => toIsoDate(Number.NaN)).toThrow(RangeError);
  });

  it('writes RFC 3339 to the second as Date does, before and after 1970, and throws for an impossible date', () => {
    const moments = [
      0,
      -1,
      -86_400_000,
      999,
      1000,
      Date.UTC(2026, 10, 22, 10, 15, 0, 999),
      Date.UTC(2000, 1, 29, 23, 59, 59),
      Date.UTC(1900, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59),
      Date.UTC(12000, 0, 1),
      Date.UTC(500, 5, 5),
    ];
    for (let i = 0; i < 5000; i += 1) moments.push(Math.floor((Math.random() - 0.3) * 1e13));
    const wrong = moments.filter((ms) => toRfc3339(ms) !== new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
    expect(wrong.map((ms) => [ms, toRfc3339(ms)])).toEqual([]);
    expect(() => toRfc3339(9e15)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { isoDate } from '../../src/infra/iso-date.js';

const expected = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('isoDate', () => {
  it('writes the UTC calendar date as toISOString does, across leap years, centuries and times of day', () => {
    const days = [
      Date.UTC(1970, 0, 1),
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(1900, 1, 28),
      Date.UTC(1900, 2, 1),
      Date.UTC(2000, 1, 29, 12),
      Date.UTC(2024, 1, 29, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(1, 0, 1),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.UTC(10000, 0, 1),
      Date.UTC(-1, 5, 1),
    ];
    for (const ms of days) expect(isoDate(ms)).toBe(expected(ms));
    // Every day of four centuries, at a time of day that differs from day to day.
    for (let ms = Date.UTC(1800, 0, 1); ms < Date.UTC(2200, 0, 1); ms += 86_400_000 + 3_601_000) expect(isoDate(ms)).toBe(expected(ms));
  });
});

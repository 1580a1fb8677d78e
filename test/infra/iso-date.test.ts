import { describe, expect, it } from 'vitest';
import { isoDate, isoDateTime } from '../../src/infra/iso-date.js';

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

describe('isoDate and isoDateTime', () => {
  it('write what toISOString writes, across leap years, centuries, times of day and outside the fast years', () => {
    // Every day of four centuries, at a time of day that differs from day to day.
    for (let ms = Date.UTC(1800, 0, 1); ms < Date.UTC(2200, 0, 1); ms += 86_400_000 + 3_601_007) samples.push(ms);
    for (const ms of samples) {
      const iso = new Date(ms).toISOString();
      expect(isoDateTime(ms), String(ms)).toBe(iso);
      expect(isoDateTime(ms, 's'), String(ms)).toBe(iso.replace(/\.\d{3}Z$/, 'Z'));
      expect(isoDate(ms), String(ms)).toBe(iso.slice(0, 10));
    }
  });

  it('throws a RangeError for an impossible date, as Date does', () => {
    expect(() => isoDateTime(9e15)).toThrow(RangeError);
    expect(() => isoDate(Number.NaN)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { KeyedLineError } from '../../src/infra/import/index.js';
import { barcode, cents, dateTime, endTimestamp, mainBarcode, timestamp } from '../../src/modules/catalogue-import/fields.js';

describe('money', () => {
  it('converts euros to cents exactly, never through a float multiplication', () => {
    expect([0.29, 0.57, 1.1, 19.99, 21.5, 100, 0, 9_999_999.99].map((euros) => cents(euros, 'price'))).toEqual([
      29, 57, 110, 1999, 2150, 10000, 0, 999_999_999,
    ]);
    expect(0.29 * 100).not.toBe(29);
  });

  it('refuses three decimals and negative amounts', () => {
    expect(() => cents(1.005, 'price')).toThrow('/price: 1.005 is not an amount in euros with at most two decimals');
    expect(() => cents(-1, 'price')).toThrow('/price: must not be negative');
    expect(() => cents(1e21, 'price')).toThrow(/not an amount/);
  });
});

describe('barcodes', () => {
  it('accepts EAN-13/ISBN-13 and ISBN-10 with hyphens or spaces and keeps the digits', () => {
    expect(barcode('978-0-306-40615-7', 'ean')).toBe('9780306406157');
    expect(barcode('978 0 306 40615 7', 'ean')).toBe('9780306406157');
    expect(barcode('0-306-40615-2', 'ean')).toBe('0306406152');
    expect(barcode('0-8044-2957-x', 'ean')).toBe('080442957X');
    expect(barcode('4006381333931', 'ean')).toBe('4006381333931');
    expect(barcode('96385074', 'ean')).toBe('96385074');
  });

  it('refuses a wrong check digit, a wrong length and letters', () => {
    expect(() => barcode('978-0-306-40615-8', 'ean')).toThrow(/not a valid EAN-13\/ISBN-13/);
    expect(() => barcode('0-306-40615-3', 'ean')).toThrow(/not a valid ISBN-10/);
    expect(() => barcode('12345', 'ean')).toThrow(/5-digit code/);
    expect(() => barcode('ISBN 978-0', 'ean')).toThrow(/not an EAN or ISBN/);
    expect(() => barcode('X306406152', 'ean')).toThrow(/not an EAN or ISBN/);
  });

  it('stores an ISBN-10 given as the main code as its ISBN-13', () => {
    expect(mainBarcode('0-306-40615-2', 'ean')).toBe('9780306406157');
    expect(mainBarcode('080442957X', 'ean')).toBe('9780804429573');
  });
});

describe('dates', () => {
  it('reads YYYY-MM-DD as the Tallinn midnight and RFC 3339 with its offset', () => {
    expect(timestamp('2026-11-22', 'from')).toBe(Date.UTC(2026, 10, 21, 22));
    expect(timestamp('2026-11-22T10:15:00+02:00', 'from')).toBe(Date.UTC(2026, 10, 22, 8, 15));
    expect(timestamp('2026-11-22T10:15:00.250Z', 'from')).toBe(Date.UTC(2026, 10, 22, 10, 15, 0, 250));
    expect(endTimestamp('2026-12-24', 'to')).toBe(Date.UTC(2026, 11, 24, 22));
    expect(endTimestamp('2026-12-24T12:00:00Z', 'to')).toBe(Date.UTC(2026, 11, 24, 12));
  });

  it('quotes a bad value cut before an emoji, not through it', () => {
    const value = `${'1'.repeat(39)}📚 and more`;
    expect(() => timestamp(value, 'from')).toThrow(`/from: "${'1'.repeat(39)}" is not a date`);
    expect(() => barcode(`${'1'.repeat(39)}📚`, 'ean')).toThrow(`/ean: "${'1'.repeat(39)}" is not an EAN or ISBN`);
  });

  it("words a bad date by a message key, in English without any module's messages registered", () => {
    const thrown = (read: () => unknown) => {
      try {
        read();
      } catch (error) {
        return error;
      }
      throw new Error('no error');
    };
    const date = thrown(() => endTimestamp('2026-02-30', 'visibleTo'));
    expect(date).toBeInstanceOf(KeyedLineError);
    expect(date).toMatchObject({ field: 'visibleTo', messageKey: 'import.notADate', params: { value: '2026-02-30' } });
    expect((date as Error).message).toBe('/visibleTo: "2026-02-30" is not a date (YYYY-MM-DD) or an RFC 3339 date-time');
    const moment = thrown(() => dateTime('2026-11-20', 'createdNav'));
    expect(moment).toMatchObject({ field: 'createdNav', messageKey: 'import.notADateTime', params: { value: '2026-11-20' } });
    expect((moment as Error).message).toBe('/createdNav: "2026-11-20" is not an RFC 3339 date-time (such as 2026-11-22T10:15:00Z)');
  });

  it('refuses impossible dates and other formats', () => {
    for (const value of ['2026-02-30', '2026-13-01', '22.11.2026', '2026-11-22T10:15', 'yesterday']) {
      expect(() => timestamp(value, 'from'), value).toThrow(/is not a date/);
    }
  });
});

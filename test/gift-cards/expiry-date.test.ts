import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { balance, card, importCards, ledger, newCode, setExpiry } from './helpers.js';

// A physical card's expiry comes from the back office as a date: the last day it is valid, a day in the
// shop's time zone (Europe/Tallinn). It ends at the next midnight there, and GET
// /virtual-gift-card/balance shows that instant (RFC 3339 UTC, as every time on the wire), so a card valid
// through 2027-12-31 reads 2027-12-31T22:00:00.000Z, not 2028-01-01T00:00:00Z (midnight in UTC, two
// hours into 1 January in Tallinn, when the card still worked).

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
const db = () => t.database.db;

const expiresAt = async (code: string) => ((await balance(t, code)).json() as { expiresAt: string | null }).expiresAt;

describe('a gift card imported valid through a date', () => {
  it('expires at the end of that day in Tallinn, winter (+02:00) and summer (+03:00) alike', async () => {
    expect(await expiresAt(await card(t, 20, '2027-12-31'))).toBe('2027-12-31T22:00:00.000Z');
    expect(await expiresAt(await card(t, 20, '2027-06-30'))).toBe('2027-06-30T21:00:00.000Z');
    // A time given with the date is the end as given.
    expect(await expiresAt(await card(t, 20, '2027-12-31T18:00:00+02:00'))).toBe('2027-12-31T16:00:00.000Z');
  });

  it('takes the last date there is, 9999-12-31, as "never expires" (its end is the next midnight in Tallinn)', async () => {
    // The day after it has a five-digit year, which a date text cannot hold: that broke the import's line.
    expect(await expiresAt(await card(t, 20, '9999-12-31'))).toBe('9999-12-31T22:00:00.000Z');
  });

  it('is spendable through 23:59:59 of its last day in Tallinn, and expired at midnight', async () => {
    const code = await card(t, 15, '2027-12-31');
    // The hourly maintenance's expiry, run at those instants (the other tests' cards end earlier).
    await expireCards(db(), Date.parse('2027-12-31T23:59:59.999+02:00'));
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 1500, kinds: ['IMPORT'] });
    await expireCards(db(), Date.parse('2028-01-01T00:00:00+02:00'));
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, kinds: ['IMPORT', 'EXPIRY'] });
  });

  it('a card imported before (its end at midnight UTC) is corrected by the next import of its line', async () => {
    const code = newCode();
    await importCards(t, [{ code, balance: 30, expiresAt: '2027-12-31' }]);
    await setExpiry(db(), code, Date.parse('2028-01-01T00:00:00Z'));
    expect(await expiresAt(code)).toBe('2028-01-01T00:00:00.000Z');
    await importCards(t, [{ code, balance: 30, expiresAt: '2027-12-31' }]);
    expect(await expiresAt(code)).toBe('2027-12-31T22:00:00.000Z');
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 3000, kinds: ['IMPORT'] });
  });
});

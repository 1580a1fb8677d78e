import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { balance, card, dateIn, importCards, ledger, setExpiry } from './helpers.js';

// The back office gives an expired physical card more time by importing its line with a later date and
// the value it loaded (docs/import.md: the balance is that value less what the card paid online). Before
// the hourly expiry ran, the card kept its value (expiry-extended.test.ts); after it, the EXPIRY entry
// had taken the rest and the card came back valid with nothing on it: the shopper's money depended on
// whether the import came before or after the hour.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
const db = () => t.database.db;

describe('an expired card given a later date by the back office after the expiry took its rest', () => {
  it('gets back what the expiry took, and only that lapse', async () => {
    const code = await card(t, 12, '2099-12-31');
    await setExpiry(db(), code, Date.now() - 60_000);
    expect(await expireCards(db(), Date.now())).toBe(1);
    expect((await balance(t, code)).json()).toMatchObject({ valid: false });

    await importCards(t, [{ code, balance: 12, expiresAt: dateIn(200) }]);
    expect((await balance(t, code)).json()).toMatchObject({ valid: true, balance: 12 });
    const after = await ledger(db(), code);
    expect(after).toMatchObject({ balanceCents: 1200, entrySumCents: 1200 });

    // The same line again changes nothing: the value came back once.
    await importCards(t, [{ code, balance: 12, expiresAt: dateIn(200) }]);
    expect(await ledger(db(), code)).toEqual(after);
  });

  it('gets back nothing when the line comes with a date that has passed too', async () => {
    const code = await card(t, 9, '2099-12-31');
    await setExpiry(db(), code, Date.now() - 3 * 86_400_000);
    expect(await expireCards(db(), Date.now())).toBe(1);
    await importCards(t, [{ code, balance: 9, expiresAt: dateIn(-1) }]);
    expect((await ledger(db(), code)).balanceCents).toBe(0);
    expect((await balance(t, code)).json()).toMatchObject({ valid: false });
  });
});

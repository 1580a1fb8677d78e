import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { afterFirstRead } from '../helpers/overlapping-writes.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { balance, card, importCards, ledger, setExpiry } from './helpers.js';

// The hourly expiry reads the cards past their date and then, one transaction a card, takes what is
// left off each (a conditional update on the balance read). The back office may import a card's
// line with a later date meanwhile (an expired card given more time, its value unchanged): the
// update matched the balance, not the date, and took the value off a card that was valid again.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
const db = () => t.database.db;

describe('the expiry job and a card given a later date meanwhile', () => {
  it('leaves the card its value', async () => {
    const code = await card(t, 12, '2099-12-31');
    await setExpiry(db(), code, Date.now() - 60_000);
    const extended = afterFirstRead(db(), 'gift_card', () => importCards(t, [{ code, balance: 12, expiresAt: '2100-06-30' }]));
    await expireCards(extended, Date.now());
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 1200, entrySumCents: 1200, kinds: ['IMPORT'] });
    expect((await balance(t, code)).json()).toMatchObject({ valid: true, balance: 12 });
  });
});

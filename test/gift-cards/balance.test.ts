import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expireCards } from '../../src/modules/gift-cards/index.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { rowCount } from '../helpers/table-counts.js';
import { importLines } from '../basket/import-helpers.js';
import { balance, card, dateIn, importCards, ledger, newCode, setExpiry } from './helpers.js';
import { MINUTE, keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow(10 * MINUTE);

// The ledger of physical cards (import gift-cards) and GET /virtual-gift-card/balance: the
// balance is the sum of the entries, an unknown code and an expired one look the same, guessing
// is counted per address, and bad input is a 4xx.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});
const db = () => t.database.db;

describe('import gift-cards', () => {
  it('creates cards, changes nothing the second time, and moves the balance by the change of the loaded value', async () => {
    const code = newCode();
    const first = await importCards(t, [{ code, balance: 25, expiresAt: '2099-12-31' }]);
    expect(first).toMatchObject({ lines: 1, outcomes: { created: 1 }, errorCount: 0 });
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 2500, entrySumCents: 2500, kinds: ['IMPORT'] });
    const again = await importCards(t, [{ code, balance: 25, expiresAt: '2099-12-31' }]);
    expect(again).toMatchObject({ outcomes: { unchanged: 1 } });
    // The back office loads 10 more onto it: one IMPORT entry of +10.
    const loaded = await importCards(t, [{ code, balance: 35, expiresAt: '2099-12-31' }]);
    expect(loaded).toMatchObject({ outcomes: { updated: 1 } });
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 3500, entrySumCents: 3500, kinds: ['IMPORT', 'IMPORT'] });
    // The code is never stored: neither as typed nor normalised.
    const rows = await db().selectFrom('gift_card').selectAll().execute();
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(code);
    expect(stored).not.toContain(code.replace(/-/g, ''));
  });

  it('reports bad lines by number and imports the rest', async () => {
    const good = newCode();
    const typo = good.slice(0, -1) + (good.endsWith('0') ? '1' : '0');
    const response = await importLines(t, 'gift-cards', [
      { code: good, balance: 10, expiresAt: dateIn(30) },
      { code: 'SHORT', balance: 10, expiresAt: dateIn(30) },
      { code: newCode(), balance: -1, expiresAt: dateIn(30) },
      { code: newCode(), balance: 10, expiresAt: 'someday' },
      { code: typo, balance: 10, expiresAt: dateIn(30) },
      { code: newCode(), balance: 10.001, expiresAt: dateIn(30) },
      { code: newCode(), balance: 10, expiresAt: dateIn(30), extra: true },
      'not json',
    ]);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.outcomes).toEqual({ created: 1 });
    expect(body.errors.map((error: { line: number }) => error.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    // No error message repeats a code.
    expect(JSON.stringify(body.errors)).not.toContain(typo);
  });
});

describe('GET /virtual-gift-card/balance', () => {
  it('answers the balance and expiry of a card, whatever the letter case, spaces and dashes', async () => {
    const code = await card(t, 42.5, '2099-06-30');
    for (const typed of [code, code.toLowerCase(), code.replace(/-/g, ' '), code.replace(/-/g, '')]) {
      const response = await balance(t, typed);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ valid: true, balance: 42.5, currency: 'EUR', expiresAt: '2099-06-30T21:00:00.000Z' });
      expect(response.headers['cache-control']).toBe('no-store');
    }
  });

  it('an unknown code and an expired one get the same answer', async () => {
    const expired = await card(t, 15, '2020-01-01');
    const unknown = await balance(t, newCode(), '198.51.100.20');
    const old = await balance(t, expired, '198.51.100.20');
    expect(unknown.statusCode).toBe(200);
    expect(old.statusCode).toBe(200);
    expect(old.json()).toEqual(unknown.json());
    expect(unknown.json()).toEqual({ valid: false, balance: 0, currency: 'EUR', expiresAt: null });
  });

  it('expiry takes what is left off the card with an EXPIRY entry, once', async () => {
    const code = await card(t, 12, dateIn(30));
    await setExpiry(db(), code, Date.now() - 1000);
    expect(await expireCards(db(), Date.now())).toBeGreaterThanOrEqual(1);
    expect(await expireCards(db(), Date.now())).toBe(0);
    expect(await ledger(db(), code)).toMatchObject({ balanceCents: 0, entrySumCents: 0, kinds: ['IMPORT', 'EXPIRY'] });
  });

  it('wrong codes from one address are limited (429 with Retry-After); right codes are not counted; other addresses go on', async () => {
    const code = await card(t, 5);
    const ip = '203.0.113.50';
    for (let i = 0; i < 12; i++) expect((await balance(t, code, ip)).statusCode).toBe(200);
    for (let i = 0; i < 10; i++) expect((await balance(t, newCode(), ip)).json().valid).toBe(false);
    const refused = await balance(t, newCode(), ip);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Past the limit even a right code waits: the answer tells nothing about the code.
    expect((await balance(t, code, ip)).statusCode).toBe(429);
    // Another address is not held up; a typo of the check character is a wrong code there, counted like any other.
    const other = '203.0.113.51';
    expect((await balance(t, code, other)).json().valid).toBe(true);
    const typo = code.slice(0, -1) + (code.endsWith('0') ? '1' : '0');
    for (let i = 0; i < 10; i++) expect((await balance(t, typo, other)).json().valid).toBe(false);
    expect((await balance(t, code, other)).statusCode).toBe(429);
  });

  it('a right code writes nothing; guesses sent all at once still get only 10 answers, then a right code waits too', async () => {
    const code = await card(t, 5);
    const ip = '203.0.113.60';
    const counters = () => rowCount(db(), 'rate_limit');
    const before = await counters();
    for (let i = 0; i < 5; i++) expect((await balance(t, code, ip)).json().valid).toBe(true);
    expect(await counters()).toBe(before);
    const answers = await Promise.all(Array.from({ length: 30 }, () => balance(t, newCode(), ip)));
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(10);
    expect(answers.filter((answer) => answer.statusCode === 429)).toHaveLength(20);
    expect((await balance(t, code, ip)).statusCode).toBe(429);
  });

  it('bad input is a 4xx, never a 500', async () => {
    for (const query of ['', '?code=', '?code=%00abcdefgh', '?code=abc', `?code=${'A'.repeat(65)}`, '?code=ABCD%2FEFGH', '?other=1']) {
      const response = await t.app.inject({ method: 'GET', url: `/virtual-gift-card/balance${query}`, remoteAddress: '192.0.2.99' });
      expect(response.statusCode, `${query}: ${response.body}`).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
      expect(response.body).not.toContain('    at ');
    }
  });
});

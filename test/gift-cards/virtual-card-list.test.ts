import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// GET /virtual-gift-card is paged (page, per-page, X-Pagination-*): a client with more cards than
// a page sees them all, page by page, newest first; it was cut at 200 without a word.

let t: TestApp;
let buyer: TestCustomer;
const CARDS = 25;
const BASE = Date.UTC(2026, 0, 1);
beforeAll(async () => {
  t = await createTestApp();
  buyer = await createCustomer(t.database.db);
  const stranger = await createCustomer(t.database.db);
  // Cards written as issued ones are: card n created at BASE + n minutes; one of another client.
  const card = (n: number, owner: number) => ({
    code_hmac: `hmac-${owner}-${n}`,
    code_hint: `H${String(n).padStart(3, '0')}`,
    kind: 'VIRTUAL' as const,
    initial_cents: 1000 + n,
    balance_cents: 1000 + n,
    expires_at: BASE + 365 * 86_400_000,
    buyer_client_account_id: owner,
    recipient_name: `Recipient ${n}`,
    recipient_email: `recipient${n}@example.ee`,
    message: '',
    deliver_at: BASE,
    mailed_at: null,
    // The newest one's recipient address did not exist.
    undeliverable_at: n === CARDS ? BASE + 86_400_000 : null,
    created_at: BASE + n * 60_000,
    updated_at: BASE + n * 60_000,
  });
  await t.database.db
    .insertInto('gift_card')
    .values([...Array.from({ length: CARDS }, (_, i) => card(i + 1, buyer.clientAccountId)), card(99, stranger.clientAccountId)])
    .execute();
});
afterAll(() => t?.close());

const list = (query = '') => call(t, 'GET', `/virtual-gift-card${query}`, { bearer: buyer.token });
const amounts = (response: { json: () => Array<{ amount: number }> }) => response.json().map((item) => item.amount);

describe('GET /virtual-gift-card, paged', () => {
  it('gives the first 20 newest first, then the rest, with the total in the headers', async () => {
    const first = await list();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['x-pagination-total-count']).toBe(String(CARDS));
    expect(first.headers['x-pagination-per-page']).toBe('20');
    expect(first.headers['x-pagination-page-count']).toBe('2');
    expect(amounts(first)).toEqual(Array.from({ length: 20 }, (_, i) => (1000 + CARDS - i) / 100));
    expect(first.json()[0]).toEqual({
      id: expect.any(Number),
      role: 'BOUGHT',
      code: null,
      amount: 10.25,
      balance: 10.25,
      expiresAt: new Date(BASE + 365 * 86_400_000).toISOString(),
      recipientName: 'Recipient 25',
      recipientEmail: 'recipient25@example.ee',
      message: '',
      deliveryAt: new Date(BASE).toISOString(),
      delivered: false,
      undeliverable: true,
    });
    expect(first.json()[1]).toMatchObject({ recipientName: 'Recipient 24', delivered: false, undeliverable: false });

    const second = await list('?page=2');
    expect(second.headers['x-pagination-total-count']).toBe(String(CARDS));
    expect(second.headers['x-pagination-current-page']).toBe('2');
    expect(amounts(second)).toEqual([10.05, 10.04, 10.03, 10.02, 10.01]);
  });

  it('takes a per-page', async () => {
    const page = await list('?page=3&per-page=10');
    expect(page.headers['x-pagination-total-count']).toBe(String(CARDS));
    expect(amounts(page)).toEqual([10.05, 10.04, 10.03, 10.02, 10.01]);
  });

  it('refuses a bad page or per-page with a 400', async () => {
    for (const query of ['?per-page=0', '?per-page=abc', '?page=0', '?page=-1']) {
      const body = expectErrorBody(await list(query), 400, 'Bad Request');
      expect(body.message).toMatch(/page/);
    }
  });
});

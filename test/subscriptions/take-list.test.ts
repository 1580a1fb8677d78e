import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldCount, heldItemsPage } from '../../src/modules/subscriptions/takes.repository.js';
import { expectErrorBody } from '../helpers/http.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { call, type SubscriptionShop, startSubscriptionShop } from './helpers.js';
import { createTakeCatalogue, subscriber, take, type Subscriber, type TakeCatalogue } from './takes-helpers.js';

// GET /subscription/{id}/take is paged (page, per-page, X-Pagination-*): audiobooks stay held for
// good, so what a subscription holds grows every month. A page is a range of
// subscription_take_held_idx (migration 0500) in the list's order, and the count one over it.

const TAKEN = 25;
let s: SubscriptionShop;
let books: TakeCatalogue;
let sub: Subscriber;
beforeAll(async () => {
  s = await startSubscriptionShop();
  books = await createTakeCatalogue(s, TAKEN);
  sub = await subscriber(s, 'AUDIOMAX');
  for (const productId of books.audiobooks) {
    const taken = await take(s, sub, productId);
    expect(taken.statusCode, taken.body).toBe(201);
  }
});
afterAll(async () => s.close());

const list = (query = '') => call(s, sub.customer, 'GET', `/subscription/${sub.id}/take${query}`);
const productIds = (response: { json: () => { items: Array<{ productId: number }> } }) =>
  response.json().items.map((item) => item.productId);
/** Taken in the catalogue's order, so newest first is the catalogue's audiobooks backwards. */
const newestFirst = () => [...books.audiobooks].reverse();

describe('GET /subscription/{id}/take, paged', () => {
  it('gives the 20 newest, then the rest, with the total in the headers', async () => {
    const first = await list();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.headers['x-pagination-total-count']).toBe(String(TAKEN));
    expect(first.headers['x-pagination-page-count']).toBe('2');
    expect(first.json()).toMatchObject({ subscriptionId: sub.id, creditsLeft: null, shelfFree: null });
    expect(productIds(first)).toEqual(newestFirst().slice(0, 20));

    const second = await list('?page=2');
    expect(second.statusCode, second.body).toBe(200);
    expect(second.headers['x-pagination-total-count']).toBe(String(TAKEN));
    expect(productIds(second)).toEqual(newestFirst().slice(20));

    const small = await list('?page=3&per-page=4');
    expect(small.headers['x-pagination-total-count']).toBe(String(TAKEN));
    expect(productIds(small)).toEqual(newestFirst().slice(8, 12));
  });

  it('refuses a bad page or per-page with a 400', async () => {
    for (const query of ['?per-page=0', '?per-page=abc', '?page=0', '?page=-1']) {
      const body = expectErrorBody(await list(query), 400, 'Bad Request');
      expect(body.message).toMatch(/page/);
    }
  });

  it('reads a page and the count as a range of subscription_take_held_idx, without a sort', async () => {
    const db = s.t.database.db;
    const { db: recorded, statements } = recordingStatements(db);
    expect(await heldCount(recorded, sub.id)).toBe(TAKEN);
    expect(await heldItemsPage(recorded, sub.id, { offset: 0, perPage: 20 })).toHaveLength(20);
    expect(statements).toHaveLength(2);
    for (const statement of statements) {
      const plan = await planOfStatement(db, statement);
      expect(plan, statement.sql).toContain('subscription_take_held_idx');
      expect(plan, statement.sql).not.toMatch(/TEMP B-TREE|Sort/);
    }
  });
});

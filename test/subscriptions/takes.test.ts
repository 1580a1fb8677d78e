import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { bill, call, createCustomer, DAY, subscriptionRow, type SubscriptionShop, startSubscriptionShop } from './helpers.js';
import { createTakeCatalogue, giveBack, holding, statuses, subscriber, take, type TakeCatalogue } from './takes-helpers.js';

// POST/GET/DELETE /subscription/{id}/take through HTTP: what each kind of plan gives, every refusal,
// and parallel takes that race for the last credit or the last place on the shelf.

let s: SubscriptionShop;
let books: TakeCatalogue;
beforeAll(async () => {
  s = await startSubscriptionShop();
  books = await createTakeCatalogue(s);
});
afterAll(async () => s.close());

const periodEnd = async (id: number) => Number((await subscriptionRow(s, id)).period_end);

describe('an audio credit plan (AUDIO1: one credit a period)', () => {
  it('gives an audiobook per credit of the current period; credits do not carry over; audiobooks stay', async () => {
    const sub = await subscriber(s, 'AUDIO1');
    expect((await subscriptionRow(s, sub.id)).status).toBe('TRIAL');
    expect(await holding(s, sub)).toMatchObject({ items: [], creditsLeft: 1, shelfFree: null });
    const first = await take(s, sub, books.audiobooks[0]);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({
      subscriptionId: sub.id,
      items: [{ productId: books.audiobooks[0], kind: 'AUDIOBOOK', usedCredit: true, title: 'Kuuldav 0' }],
      creditsLeft: 0,
    });
    const none = await take(s, sub, books.audiobooks[1]);
    expectErrorBody(none, 409, 'Conflict');
    expect(none.json().message).toContain('No credits left');
    // The trial ends and the first month is paid: a new period, one new credit. Left unused...
    await bill(s, (await periodEnd(sub.id)) + 1000);
    expect(await subscriptionRow(s, sub.id)).toMatchObject({ status: 'ACTIVE', period_number: 1 });
    expect((await holding(s, sub)).creditsLeft).toBe(1);
    // ... it is gone when the next period starts: still one credit, not two.
    await bill(s, (await periodEnd(sub.id)) + 1000);
    expect(await subscriptionRow(s, sub.id)).toMatchObject({ status: 'ACTIVE', period_number: 2 });
    expect((await holding(s, sub)).creditsLeft).toBe(1);
    expect((await take(s, sub, books.audiobooks[1])).statusCode).toBe(201);
    expectErrorBody(await take(s, sub, books.audiobooks[2]), 409, 'Conflict');
    // The audiobook of the trial is still held, next to the new one.
    expect((await holding(s, sub)).items.map((item) => item.productId)).toEqual([books.audiobooks[1], books.audiobooks[0]]);
  });

  it('an audiobook already held is refused, and an audiobook is not given back (its credit neither)', async () => {
    const sub = await subscriber(s, 'AUDIO1');
    expect((await take(s, sub, books.audiobooks[3])).statusCode).toBe(201);
    const again = await take(s, sub, books.audiobooks[3]);
    expectErrorBody(again, 409, 'Conflict');
    const back = await giveBack(s, sub, books.audiobooks[3]!);
    expectErrorBody(back, 409, 'Conflict');
    expect(await holding(s, sub)).toMatchObject({ items: [{ productId: books.audiobooks[3] }], creditsLeft: 0 });
  });

  it('refuses products the plan does not give or the store does not sell (422 on productId)', async () => {
    const sub = await subscriber(s, 'AUDIO1');
    for (const productId of [
      books.ebooks[0],
      books.cdAudiobook,
      books.paperBook,
      books.hiddenEbook,
      books.comingSoonEbook,
      books.otherStoreEbook,
      999_999_999,
    ]) {
      expect(expectFieldErrors(await take(s, sub, productId)), `product ${productId}`).toEqual(['productId']);
    }
    expect(expectFieldErrors(await take(s, sub, '5'))).toEqual(['productId']);
    expect(expectFieldErrors(await take(s, sub, -1))).toEqual(['productId']);
    expect((await call(s, sub.customer, 'POST', `/subscription/${sub.id}/take`, {})).statusCode).toBe(422);
    expect((await call(s, sub.customer, 'DELETE', `/subscription/${sub.id}/take`)).statusCode).toBe(400);
    expect((await call(s, sub.customer, 'DELETE', `/subscription/${sub.id}/take?productId=abc`)).statusCode).toBe(400);
    expect((await call(s, sub.customer, 'POST', '/subscription/abc/take', { productId: 1 })).statusCode).toBe(400);
    // Nothing of it used a credit.
    expect((await holding(s, sub)).creditsLeft).toBe(1);
  });
});

describe('an unlimited audio plan (AUDIOMAX)', () => {
  it('gives any downloadable audiobook, once each, and nothing else', async () => {
    const sub = await subscriber(s, 'AUDIOMAX');
    for (const productId of books.audiobooks.slice(0, 5)) expect((await take(s, sub, productId)).statusCode).toBe(201);
    const held = await holding(s, sub);
    expect(held).toMatchObject({ creditsLeft: null, shelfFree: null });
    expect(held.items.map((item) => [item.kind, item.usedCredit])).toEqual(Array(5).fill(['AUDIOBOOK', false]));
    expectErrorBody(await take(s, sub, books.audiobooks[0]), 409, 'Conflict');
    expect(expectFieldErrors(await take(s, sub, books.ebooks[0]))).toEqual(['productId']);
  });
});

describe('an e-book shelf plan (SHELF5: five at once)', () => {
  it('puts e-books on the shelf up to its size; one taken off frees its place and may come back', async () => {
    const sub = await subscriber(s, 'SHELF5');
    for (const productId of books.ebooks.slice(0, 5)) expect((await take(s, sub, productId)).statusCode).toBe(201);
    expect((await holding(s, sub)).shelfFree).toBe(0);
    const full = await take(s, sub, books.ebooks[5]);
    expectErrorBody(full, 409, 'Conflict');
    expect(full.json().message).toContain('shelf is full');
    expectErrorBody(await take(s, sub, books.ebooks[0]), 409, 'Conflict');
    const off = await giveBack(s, sub, books.ebooks[2]!);
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().shelfFree).toBe(1);
    expect(off.json().items.map((item: { productId: number }) => item.productId)).not.toContain(books.ebooks[2]);
    expectErrorBody(await giveBack(s, sub, books.ebooks[2]!), 404, 'Not Found');
    expectErrorBody(await giveBack(s, sub, books.ebooks[6]!), 404, 'Not Found');
    expect((await take(s, sub, books.ebooks[5])).statusCode).toBe(201);
    expectErrorBody(await take(s, sub, books.ebooks[2]), 409, 'Conflict');
    expect((await giveBack(s, sub, books.ebooks[5]!)).statusCode).toBe(200);
    // The book taken off before comes back onto the shelf.
    expect((await take(s, sub, books.ebooks[2])).statusCode).toBe(201);
    expect(expectFieldErrors(await take(s, sub, books.audiobooks[0]))).toEqual(['productId']);
  });
});

describe('who and when', () => {
  it("another customer's subscription is a 404 on every take route, and nothing changes", async () => {
    const sub = await subscriber(s, 'SHELF5');
    expect((await take(s, sub, books.ebooks[0])).statusCode).toBe(201);
    const other = await createCustomer(s.t.database.db);
    expectErrorBody(await take(s, sub, books.ebooks[1], other), 404, 'Not Found');
    expectErrorBody(await giveBack(s, sub, books.ebooks[0]!, other), 404, 'Not Found');
    expectErrorBody(await call(s, other, 'GET', `/subscription/${sub.id}/take`), 404, 'Not Found');
    expectErrorBody(await call(s, other, 'GET', '/subscription/99999999/take'), 404, 'Not Found');
    expect((await call(s, null, 'POST', `/subscription/${sub.id}/take`, { productId: books.ebooks[1] })).statusCode).toBe(401);
    expect((await holding(s, sub)).items.map((item) => item.productId)).toEqual([books.ebooks[0]]);
  });

  it('a cancelled subscription gives until its period ends; past it, FAILED, LAPSED and ENDED give nothing', async () => {
    const sub = await subscriber(s, 'SHELF5');
    expect((await call(s, sub.customer, 'DELETE', `/subscription/${sub.id}`)).json()).toMatchObject({ cancelAtPeriodEnd: true });
    expect((await take(s, sub, books.ebooks[0])).statusCode).toBe(201);
    const db = s.t.database.db;
    // The period is over (the billing run that ends it has not come yet).
    await db
      .updateTable('subscription')
      .set({ period_end: Date.now() - 1000 })
      .where('id', '=', sub.id)
      .execute();
    const over = await take(s, sub, books.ebooks[1]);
    expectErrorBody(over, 409, 'Conflict');
    expect(over.json().message).toContain('period is over');
    for (const status of ['FAILED', 'LAPSED', 'ENDED', 'PENDING'] as const) {
      await db
        .updateTable('subscription')
        .set({ status, period_end: Date.now() + DAY })
        .where('id', '=', sub.id)
        .execute();
      const refused = await take(s, sub, books.ebooks[1]);
      expectErrorBody(refused, 409, 'Conflict');
      expect(refused.json().message).toContain(status);
    }
  });
});

describe('parallel takes', () => {
  it('spend the last credit once', async () => {
    const sub = await subscriber(s, 'AUDIO1');
    const answers = await Promise.all(books.audiobooks.map((productId) => take(s, sub, productId)));
    expect(statuses(answers)).toEqual([201, ...Array(books.audiobooks.length - 1).fill(409)]);
    expect((await holding(s, sub)).items).toHaveLength(1);
  });

  it('fill the last place on the shelf once, and the same book once', async () => {
    const sub = await subscriber(s, 'SHELF5');
    for (const productId of books.ebooks.slice(0, 4)) expect((await take(s, sub, productId)).statusCode).toBe(201);
    const rest = books.ebooks.slice(4);
    const answers = await Promise.all([...rest, ...rest].map((productId) => take(s, sub, productId)));
    expect(statuses(answers)).toEqual([201, ...Array(rest.length * 2 - 1).fill(409)]);
    expect((await holding(s, sub)).items).toHaveLength(5);
    // One book, many requests, room for all: held once.
    const unlimited = await subscriber(s, 'AUDIOMAX');
    const same = await Promise.all(Array.from({ length: 6 }, () => take(s, unlimited, books.audiobooks[7])));
    expect(statuses(same)).toEqual([201, 409, 409, 409, 409, 409]);
  });
});

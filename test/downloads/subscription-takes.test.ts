import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { expectErrorBody } from '../helpers/http.js';
import {
  bill,
  call,
  createCustomer,
  DAY,
  subscriptionRow,
  startSubscriptionShop,
  type SubscriptionShop,
} from '../subscriptions/helpers.js';
import { createTakeCatalogue, giveBack, subscriber, take, type Subscriber, type TakeCatalogue } from '../subscriptions/takes-helpers.js';

// What a subscription gives appears in GET /download while the subscription lasts, through the real
// flow (saved card, subscription, take, operator's upload, link, file), and leaves it when an e-book
// is taken off the shelf, when a cancelled subscription's period ends and when a subscription lapses.

let s: SubscriptionShop;
let books: TakeCatalogue;
let fileDir: string;
const bytes = new Map<number, Buffer>();

interface Item {
  id: string;
  source: string;
  orderCode: string;
  productId: number;
  format: string;
  downloadsUsed: number;
  downloadsAllowed: number;
}

beforeAll(async () => {
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-take-files-'));
  s = await startSubscriptionShop({ FILE_STORE_DIR: fileDir, DOWNLOAD_LIMIT: '3' });
  books = await createTakeCatalogue(s, 4);
  const key = await createApiKey(s.t.database.db, 'files', Date.now());
  const products = await s.t.database.db.selectFrom('product').select(['id', 'code', 'type']).execute();
  for (const product of products.filter((p) => p.type === 'EBOOK' || p.type === 'AUDIOBOOK')) {
    const body = randomBytes(2_000);
    const format = product.type === 'EBOOK' ? 'EPUB' : 'MP3';
    const uploaded = await s.t.app.inject({
      method: 'PUT',
      url: `/admin/product-files/${product.code}/${format}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream' },
      payload: body,
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    bytes.set(Number(product.id), body);
  }
});
afterAll(async () => {
  await s?.close();
  rmSync(fileDir, { recursive: true, force: true });
});

async function downloads(who: Subscriber): Promise<Item[]> {
  const response = await call(s, who.customer, 'GET', '/download?per-page=100');
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Item[];
}

const productsOf = async (who: Subscriber) => (await downloads(who)).map((item) => item.productId).sort((a, b) => a - b);

/** The path of a fresh link to the item (GET /download/{id}/link). */
async function linkOf(who: Subscriber, id: string): Promise<string> {
  const response = await call(s, who.customer, 'GET', `/download/${id}/link`);
  expect(response.statusCode, response.body).toBe(200);
  return new URL(response.json().url).pathname.replace(s.t.config.basePath, '');
}

const fetchFile = (path: string) => s.t.app.inject({ method: 'GET', url: path, headers: { 'x-app-language': 'en' } });

describe('GET /download and what a subscription gave', () => {
  it('lists and serves the e-books on the shelf; one taken off the shelf leaves the list and its links stop', async () => {
    const sub = await subscriber(s, 'SHELF5');
    expect((await take(s, sub, books.ebooks[0])).statusCode).toBe(201);
    expect((await take(s, sub, books.ebooks[1])).statusCode).toBe(201);
    const items = await downloads(sub);
    expect(items.map((item) => [item.productId, item.source, item.orderCode, item.format])).toEqual([
      [books.ebooks[1], 'SUBSCRIPTION', '', 'EPUB'],
      [books.ebooks[0], 'SUBSCRIPTION', '', 'EPUB'],
    ]);
    expect(items[0]!.id).toMatch(/^S\d+-\d+$/);
    const page = await call(s, sub.customer, 'GET', '/download?per-page=1');
    expect(page.headers['x-pagination-total-count']).toBe('2');
    const kept = items.find((item) => item.productId === books.ebooks[1])!;
    const leaving = items.find((item) => item.productId === books.ebooks[0])!;
    const file = await fetchFile(await linkOf(sub, kept.id));
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(bytes.get(books.ebooks[1]!)!)).toBe(true);
    const early = await linkOf(sub, leaving.id);

    // Another customer sees none of it and cannot link it.
    const other = { customer: await createCustomer(s.t.database.db), id: sub.id };
    expect(await downloads(other)).toEqual([]);
    expectErrorBody(await call(s, other.customer, 'GET', `/download/${kept.id}/link`), 404, 'Not Found');

    expect((await giveBack(s, sub, books.ebooks[0]!)).statusCode).toBe(200);
    expect(await productsOf(sub)).toEqual([books.ebooks[1]]);
    expectErrorBody(await fetchFile(early), 403, 'Forbidden');
    expectErrorBody(await call(s, sub.customer, 'GET', `/download/${leaving.id}/link`), 404, 'Not Found');
  });

  it('a take counts its downloads up to DOWNLOAD_LIMIT like a purchase', async () => {
    const sub = await subscriber(s, 'SHELF5');
    expect((await take(s, sub, books.ebooks[2])).statusCode).toBe(201);
    const [item] = await downloads(sub);
    for (let used = 1; used <= 3; used += 1) {
      expect((await fetchFile(await linkOf(sub, item!.id))).statusCode).toBe(200);
      expect((await downloads(sub))[0]).toMatchObject({ downloadsUsed: used, downloadsAllowed: 3 });
    }
    expectErrorBody(await call(s, sub.customer, 'GET', `/download/${item!.id}/link`), 403, 'Forbidden');
  });

  it('a cancelled subscription gives its downloads until its period ends, then none', async () => {
    const sub = await subscriber(s, 'SHELF5');
    expect((await take(s, sub, books.ebooks[3])).statusCode).toBe(201);
    expect((await call(s, sub.customer, 'DELETE', `/subscription/${sub.id}`)).statusCode).toBe(200);
    const [item] = await downloads(sub);
    expect(item?.productId).toBe(books.ebooks[3]);
    const link = await linkOf(sub, item!.id);
    // The period ends (before the billing run that ends the subscription has come).
    await s.t.database.db
      .updateTable('subscription')
      .set({ period_end: Date.now() - 1000 })
      .where('id', '=', sub.id)
      .execute();
    expect(await downloads(sub)).toEqual([]);
    expectErrorBody(await fetchFile(link), 403, 'Forbidden');
    await bill(s, Date.now());
    expect((await subscriptionRow(s, sub.id)).status).toBe('ENDED');
    expect(await downloads(sub)).toEqual([]);
  });

  it('audiobooks stay through renewals and failed renewals that are retried, and go when the subscription lapses', async () => {
    const sub = await subscriber(s, 'AUDIO1');
    const token = s.everypay.cards().at(-1)!.token;
    expect((await take(s, sub, books.audiobooks[0])).statusCode).toBe(201);
    // The trial ends and the first month is paid: the credit's audiobook is still there.
    await bill(s, Number((await subscriptionRow(s, sub.id)).period_end) + 1000);
    expect(await subscriptionRow(s, sub.id)).toMatchObject({ status: 'ACTIVE', period_number: 1 });
    expect((await take(s, sub, books.audiobooks[1])).statusCode).toBe(201);
    expect(await productsOf(sub)).toEqual([books.audiobooks[0], books.audiobooks[1]]);
    // The next renewal fails: retried, access goes on, nothing new is given.
    s.everypay.setCardOutcome(token, 'failed');
    const end = Number((await subscriptionRow(s, sub.id)).period_end);
    await bill(s, end + 1000);
    expect((await subscriptionRow(s, sub.id)).status).toBe('FAILED');
    expect(await productsOf(sub)).toEqual([books.audiobooks[0], books.audiobooks[1]]);
    expect((await take(s, sub, books.audiobooks[2])).statusCode).toBe(409);
    const [item] = await downloads(sub);
    const link = await linkOf(sub, item!.id);
    for (const day of [1, 3, 7]) await bill(s, end + day * DAY);
    expect((await subscriptionRow(s, sub.id)).status).toBe('LAPSED');
    expect(await downloads(sub)).toEqual([]);
    expectErrorBody(await fetchFile(link), 403, 'Forbidden');
  });
});

import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backInStockPruning, REQUEST_LIFETIME_MS, scanBackInStock } from '../../src/modules/back-in-stock/index.js';
import { importLines } from '../basket/import-helpers.js';
import { createProduct, createShop } from '../helpers/catalogue.js';
import { createCustomer, emailOf } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { secondWorker } from '../helpers/second-worker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { askConfirmed } from './helpers.js';

// The mails: when a stock import (or a status change) makes a product available again, each
// requester gets one mail in its language, with the product's name and link, through the outbox;
// exactly once although two scans (two worker processes on PostgreSQL: two connection pools) and
// two job runners race. Expired requests are never told and are pruned. Guests' requests here are
// confirmed through their mailed link first (opt-in.test.ts tests the confirmation).

let t: TestApp;
let smtp: SmtpCatcher;
let second: ReturnType<typeof secondWorker>;
let shopCode: string;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    env: { SMTP_URL: smtp.url, BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h', BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP: '1000/1m' },
  });
  // Another worker process: its own pool on PostgreSQL.
  second = secondWorker(t);
  shopCode = `BIS${Date.now().toString(36)}`;
  await createShop(t.database.db, { code: shopCode });
});
afterAll(async () => {
  await second?.close();
  await t.close();
  await smtp.close();
});
beforeEach(() => smtp.clear());

const recipients = (mails: ParsedMail[]) =>
  mails.flatMap((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address)));
const ask = (body: object, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/back-in-stock', payload: body, headers });
const guest = (body: { productId: number; email: string }, headers: Record<string, string> = {}) => askConfirmed(t, smtp, body, headers);
const codeOf = async (id: number) =>
  (await t.database.db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow()).code;

/** Two workers at once: both scan, then both drain the outbox. */
async function twoWorkers(now = Date.now()) {
  const [a, b] = await Promise.all([scanBackInStock(t.database.db, now), scanBackInStock(second.database.db, now)]);
  await Promise.all([t.jobs.worker.drain(), second.jobs.worker.drain()]);
  return a + b;
}

describe('a stock import makes a product available again', () => {
  it('mails each requester once, in its language, with the name and link; two racing workers send no second mail', async () => {
    const product = await createProduct(t.database.db, { name: 'Kevadine raamat', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const client = await createCustomer(t.database.db);
    const clientEmail = await emailOf(t.database.db, client);
    await guest({ productId: product, email: 'vene@example.ee' }, { 'x-app-language': 'ru' });
    await guest({ productId: product, email: 'eesti@example.ee' }, { 'x-app-language': 'et' });
    await guest({ productId: product, email: 'english@example.ee' }, { 'x-app-language': 'en' });
    expect((await ask({ productId: product }, { authorization: `Bearer ${client.token}` })).statusCode).toBe(201);

    // Nothing while it is still sold out.
    expect(await twoWorkers()).toBe(0);
    expect(smtp.mails).toEqual([]);

    const imported = await importLines(t, 'stock', [{ product: await codeOf(product), shop: shopCode, quantity: 3 }]);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(await twoWorkers()).toBe(4);
    expect(recipients(smtp.mails).sort()).toEqual([clientEmail, 'eesti@example.ee', 'english@example.ee', 'vene@example.ee'].sort());

    const to = (address: string) => smtp.mails.find((mail) => recipients([mail]).includes(address))!;
    const link = `http://localhost:5173/product/${product}`;
    expect(to('vene@example.ee').subject).toBe('Kevadine raamat снова в наличии – Main store');
    expect(to('eesti@example.ee').subject).toBe('Kevadine raamat on jälle saadaval – Main store');
    expect(to('english@example.ee').subject).toBe('Kevadine raamat is available again – Main store');
    // The client's mail follows its account's language (et).
    expect(to(clientEmail).subject).toContain('jälle saadaval');
    for (const mail of smtp.mails) {
      expect(mail.text).toContain(link);
      expect(mail.html).toContain(`href="${link}"`);
    }

    // Later scans and drains send nothing more; the requests show as notified.
    expect(await twoWorkers()).toBe(0);
    expect(smtp.mails).toHaveLength(4);
    const listed = await t.app.inject({ url: '/back-in-stock', headers: { authorization: `Bearer ${client.token}` } });
    expect(listed.json()).toEqual([expect.objectContaining({ productId: product, notifiedAt: expect.any(String) })]);
  });

  it('is exactly once when many scans race over many requests', async () => {
    const product = await createProduct(t.database.db, { name: 'Rahvaraamat', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const emails = Array.from({ length: 12 }, (_, i) => `race${i}@example.ee`);
    for (const email of emails) await guest({ productId: product, email });
    await importLines(t, 'stock', [{ product: await codeOf(product), shop: shopCode, quantity: 1 }]);
    const now = Date.now();
    const queued = await Promise.all([
      scanBackInStock(t.database.db, now),
      scanBackInStock(second.database.db, now),
      scanBackInStock(t.database.db, now),
      scanBackInStock(second.database.db, now),
    ]);
    expect(queued.reduce((a, b) => a + b, 0)).toBe(12);
    await Promise.all([t.jobs.worker.drain(), second.jobs.worker.drain(), t.jobs.worker.drain()]);
    expect(recipients(smtp.mails).sort()).toEqual([...emails].sort());
  });

  it('also follows a status change (coming soon to available with stock), and never tells about a hidden product', async () => {
    const db = t.database.db;
    const soon = await createProduct(db, { name: 'Tulekul', availability: 'COMING_SOON' });
    const hidden = await createProduct(db, { name: 'Peidus', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    await importLines(t, 'stock', [{ product: await codeOf(soon), shop: shopCode, quantity: 2 }]);
    await guest({ productId: soon, email: 'soon@example.ee' });
    await guest({ productId: hidden, email: 'hidden@example.ee' });
    await db.updateTable('product').set({ hidden_web: true }).where('id', '=', hidden).execute();
    await importLines(t, 'stock', [{ product: await codeOf(hidden), shop: shopCode, quantity: 2 }]);
    expect(await twoWorkers()).toBe(0);
    await db.updateTable('product').set({ availability: 'AVAILABLE' }).where('id', '=', soon).execute();
    expect(await twoWorkers()).toBe(1);
    expect(recipients(smtp.mails)).toEqual(['soon@example.ee']);
  });
});

describe('expiry', () => {
  it('tells nobody after 14 days, and the prune task deletes the request', async () => {
    const product = await createProduct(t.database.db, { name: 'Unustatud', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const asked = await guest({ productId: product, email: 'late@example.ee' });
    expect(asked.statusCode).toBe(202);
    const { id } = await t.database.db
      .selectFrom('back_in_stock_request')
      .select('id')
      .where('email', '=', 'late@example.ee')
      .executeTakeFirstOrThrow();
    await importLines(t, 'stock', [{ product: await codeOf(product), shop: shopCode, quantity: 4 }]);
    const later = Date.now() + REQUEST_LIFETIME_MS + 60_000;
    expect(await twoWorkers(later)).toBe(0);
    expect(smtp.mails).toEqual([]);
    expect(await backInStockPruning()(t.database.db, later)).toBeGreaterThanOrEqual(1);
    expect(await t.database.db.selectFrom('back_in_stock_request').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
  });
});

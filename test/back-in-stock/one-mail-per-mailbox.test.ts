import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { scanBackInStock } from '../../src/modules/back-in-stock/index.js';
import { importLines } from '../basket/import-helpers.js';
import { createProduct, createShop } from '../helpers/catalogue.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { secondWorker } from '../helpers/second-worker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { askBackInStock, recipientsOf } from './helpers.js';

// A restock sends one mail per mailbox: the requests of one store, product and email share it. A
// person's retail and business accounts (one login email) each keep their own request, and a guest's
// and a client's request with one address can both be there; a restock mailed each of them, so one
// mailbox got two identical mails. Every request of the mailbox is marked told in the transaction
// that queues the one mail, exactly once although two workers (two pools on PostgreSQL) race.

let t: TestApp;
let smtp: SmtpCatcher;
let second: ReturnType<typeof secondWorker>;
let shopCode: string;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h' } });
  // Another worker process: its own pool on PostgreSQL.
  second = secondWorker(t);
  shopCode = `BISB${Date.now().toString(36)}`;
  await createShop(t.database.db, { code: shopCode });
});
afterAll(async () => {
  await second?.close();
  await t?.close();
  await smtp?.close();
});
beforeEach(() => smtp.clear());

const db = () => t.database.db;
const askAs = async (who: TestCustomer, productId: number) => {
  const asked = await askBackInStock(t, { productId }, { authorization: `Bearer ${who.token}` });
  expect(asked.statusCode, asked.body).toBe(201);
};
const mailsTo = (email: string): ParsedMail[] => smtp.mails.filter((mail) => recipientsOf(mail).includes(email));
const notifiedOf = async (productId: number) =>
  (await db().selectFrom('back_in_stock_request').select('notified_at').where('product_id', '=', productId).execute()).map(
    (row) => row.notified_at !== null,
  );

/** Two workers at once: both scan, then both drain the outbox; answers how many mails the scans queued. */
async function twoWorkers(now = Date.now()) {
  const [a, b] = await Promise.all([scanBackInStock(db(), now), scanBackInStock(second.database.db, now)]);
  await Promise.all([t.jobs.worker.drain(), second.jobs.worker.drain()]);
  return a + b;
}

async function restock(productIds: number[]) {
  const codes = await db().selectFrom('product').select('code').where('id', 'in', productIds).execute();
  const imported = await importLines(
    t,
    'stock',
    codes.map((row) => ({ product: row.code, shop: shopCode, quantity: 2 })),
  );
  expect(imported.statusCode, imported.body).toBe(200);
}

describe('one restock mail per mailbox', () => {
  it("one person's retail and business accounts asking for one product: one mail, both requests told", async () => {
    const retail = await createCustomer(db());
    const business = await createCustomer(db(), { kind: 'BUSINESS', ofUser: retail });
    const email = await emailOf(db(), retail);
    const product = await createProduct(db(), { name: 'Kahe kontoga', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    await askAs(retail, product);
    await askAs(business, product);

    await restock([product]);
    expect(await twoWorkers()).toBe(1);
    expect(mailsTo(email).map((mail) => mail.subject)).toEqual(['Kahe kontoga on jälle saadaval – Main store']);
    expect(await notifiedOf(product)).toEqual([true, true]);
    // Both accounts' lists say told; later scans send nothing more.
    for (const who of [retail, business]) {
      const listed = await t.app.inject({ url: '/back-in-stock', headers: { authorization: `Bearer ${who.token}` } });
      expect(listed.json()).toEqual([expect.objectContaining({ productId: product, notifiedAt: expect.any(String) })]);
    }
    expect(await twoWorkers()).toBe(0);
    expect(smtp.mails).toHaveLength(1);
  });

  it("a guest's and a client's request with one address: one mail, in the client's language; a third address still gets its own", async () => {
    const client = await createCustomer(db());
    const email = await emailOf(db(), client);
    await db().updateTable('app_user').set({ language: 'en' }).where('email', '=', email).execute();
    const product = await createProduct(db(), { name: 'Ühe postkastiga', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    await askAs(client, product);
    // The guest's confirmed request with the client's address, as rows written before a client's
    // request followed its login email left it (a client who changed to an address they had asked
    // with as a guest), or as a guest's and a client's first requests sent at the same moment leave.
    const now = Date.now();
    const guestRow = {
      store_code: 'WEB',
      product_id: product,
      client_account_id: null,
      language: 'ru',
      audience: 'R' as const,
      created_at: now,
      expires_at: now + 86_400_000,
      notified_at: null,
      confirmed_at: now,
      token_hash: null,
    };
    await db()
      .insertInto('back_in_stock_request')
      .values([
        { ...guestRow, email },
        { ...guestRow, email: 'naaber@example.ee' },
      ])
      .execute();

    await restock([product]);
    expect(await twoWorkers()).toBe(2);
    expect(mailsTo(email).map((mail) => mail.subject)).toEqual(['Ühe postkastiga is available again – Main store']);
    expect(mailsTo('naaber@example.ee')).toHaveLength(1);
    expect(await notifiedOf(product)).toEqual([true, true, true]);
    expect(await twoWorkers()).toBe(0);
    expect(smtp.mails).toHaveLength(2);
  });

  it('is exactly once when four scans race over many mailboxes of two requests each', async () => {
    const product = await createProduct(db(), { name: 'Võidujooks', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    const emails: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const person = await createCustomer(db());
      const business = await createCustomer(db(), { kind: 'BUSINESS', ofUser: person });
      await askAs(person, product);
      await askAs(business, product);
      emails.push(await emailOf(db(), person));
    }
    await restock([product]);
    const now = Date.now();
    const queued = await Promise.all([
      scanBackInStock(db(), now),
      scanBackInStock(second.database.db, now),
      scanBackInStock(db(), now),
      scanBackInStock(second.database.db, now),
    ]);
    expect(queued.reduce((a, b) => a + b, 0)).toBe(6);
    await Promise.all([t.jobs.worker.drain(), second.jobs.worker.drain(), t.jobs.worker.drain()]);
    expect(smtp.mails.flatMap(recipientsOf).sort()).toEqual([...emails].sort());
    expect(await notifiedOf(product)).toEqual(Array.from({ length: 12 }, () => true));
  });
});

import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanBackInStock } from '../../src/modules/back-in-stock/index.js';
import { importLines } from '../basket/import-helpers.js';
import { createProduct, createShop } from '../helpers/catalogue.js';
import { createCustomer, emailOf, type TestCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { askConfirmed } from './helpers.js';

// Whom a client's request is told. The client's `notifications.backInStock` switch (GET/PUT /client-account/preferences): while it is
// off a new request is refused (it would wait for a mail never sent), and a request made before is
// told nothing, though the scan tells everyone else; switched on again, asking again re-arms it.

let t: TestApp;
let smtp: SmtpCatcher;
let shopCode: string;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({
    env: { SMTP_URL: smtp.url, BACK_IN_STOCK_RATE_LIMIT_PER_IP: '1000/1h', BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP: '1000/1m' },
  });
  shopCode = `BSO${Date.now().toString(36)}`;
  await createShop(t.database.db, { code: shopCode });
});
afterAll(async () => {
  await t.close();
  await smtp.close();
});

const bearer = (who: TestCustomer) => ({ authorization: `Bearer ${who.token}` });
const ask = (productId: number, who: TestCustomer) =>
  t.app.inject({ method: 'POST', url: '/back-in-stock', payload: { productId }, headers: bearer(who) });
const switchBackInStock = async (who: TestCustomer, backInStock: boolean) => {
  const saved = await t.app.inject({
    method: 'PUT',
    url: '/client-account/preferences',
    payload: { notifications: { backInStock } },
    headers: bearer(who),
  });
  expect(saved.statusCode, saved.body).toBe(200);
  expect(saved.json().notifications.backInStock).toBe(backInStock);
};
const requestsOf = (who: TestCustomer) =>
  t.database.db
    .selectFrom('back_in_stock_request')
    .select(['id', 'notified_at'])
    .where('client_account_id', '=', who.clientAccountId)
    .execute();
const recipients = (mails: ParsedMail[]) =>
  mails.flatMap((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).flatMap((to) => to?.value.map((v) => v.address)));

async function stock(productId: number, quantity: number): Promise<void> {
  const { code } = await t.database.db.selectFrom('product').select('code').where('id', '=', productId).executeTakeFirstOrThrow();
  const imported = await importLines(t, 'stock', [{ product: code, shop: shopCode, quantity }]);
  expect(imported.statusCode, imported.body).toBe(200);
}

async function scanAndSend(): Promise<void> {
  await scanBackInStock(t.database.db, Date.now());
  await t.drainJobs();
}

describe("a client's back-in-stock switch", () => {
  it('off: a new request is a 409 naming the preference, and nothing is stored', async () => {
    const client = await createCustomer(t.database.db);
    const product = await createProduct(t.database.db, { name: 'Vaikne raamat', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    await switchBackInStock(client, false);
    const refused = await ask(product, client);
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json().message).toMatch(/välja lülitatud/);
    expect(await requestsOf(client)).toEqual([]);
  });

  it('switched off after asking: the restock tells the others and not the client; on again and asked again, it is told', async () => {
    smtp.clear();
    const client = await createCustomer(t.database.db);
    const clientEmail = await emailOf(t.database.db, client);
    const product = await createProduct(t.database.db, { name: 'Oodatud raamat', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    expect((await ask(product, client)).statusCode).toBe(201);
    await askConfirmed(t, smtp, { productId: product, email: 'teine.ootaja@example.ee' });
    await switchBackInStock(client, false);

    await stock(product, 2);
    await scanAndSend();
    await smtp.waitFor((mail) => recipients([mail]).includes('teine.ootaja@example.ee'), 5000);
    expect(recipients(smtp.mails)).toEqual(['teine.ootaja@example.ee']);
    // Claimed with the rest, so no later scan mails it either.
    expect((await requestsOf(client)).map((request) => request.notified_at !== null)).toEqual([true]);
    await scanAndSend();
    expect(recipients(smtp.mails)).toEqual(['teine.ootaja@example.ee']);

    // Sold out again, switched on, asked again: the next restock tells the client.
    await stock(product, 0);
    await switchBackInStock(client, true);
    const again = await ask(product, client);
    expect(again.statusCode, again.body).toBe(200);
    await stock(product, 1);
    await scanAndSend();
    await smtp.waitFor((mail) => recipients([mail]).includes(clientEmail), 5000);
    expect(recipients(smtp.mails).sort()).toEqual([clientEmail, 'teine.ootaja@example.ee'].sort());
  });

  it('a request of an account taken out of its company since is told nothing', async () => {
    smtp.clear();
    const client = await createCustomer(t.database.db);
    const product = await createProduct(t.database.db, { name: 'Lahkunu raamat', availability: 'TEMPORARILY_OUT_OF_STOCK' });
    expect((await ask(product, client)).statusCode).toBe(201);
    await askConfirmed(t, smtp, { productId: product, email: 'kolmas.ootaja@example.ee' });
    // What a company master's removal of the employee does to the account (companies' removeAccount).
    await t.database.db.updateTable('client_account').set({ status: 'REMOVED' }).where('id', '=', client.clientAccountId).execute();
    await stock(product, 2);
    await scanAndSend();
    await smtp.waitFor((mail) => recipients([mail]).includes('kolmas.ootaja@example.ee'), 5000);
    expect(recipients(smtp.mails)).toEqual(['kolmas.ootaja@example.ee']);
  });
});

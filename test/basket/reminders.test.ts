import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatEuros } from '../../src/i18n/index.js';
import { fixedClock } from '../../src/infra/clock.js';
import { basketReminderPruning, scanBasketReminders } from '../../src/modules/basket/index.js';
import { markLoginEmailUnconfirmed, marketingEmailOf } from '../../src/modules/profile/index.js';
import { recipientsOf } from '../back-in-stock/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer, emailOf, userIdOf, type TestCustomer } from '../helpers/customers.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { secondWorker } from '../helpers/second-worker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, setUpShop, type Shop } from '../orders/helpers.js';
import { add, basketOf, call, read } from './helpers.js';

// A logged-in client's basket left alone for a day is mailed once (the worker's scan, driven here
// with its `now`, to which the app's clock moves, as the worker runs the mails it queued by that clock;
// the clock is moved by hand too so that baskets change when the test says), to
// clients who may get marketing mail only, with their own lines priced as GET /basket prices them.
// Each test starts 30 days after the one before, so the baskets of earlier tests are out of the
// 7-day window and every scan sees only its own test's.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let t: TestApp;
let smtp: SmtpCatcher;
let second: ReturnType<typeof secondWorker>;
let shop: Shop;
const clock = fixedClock(Date.UTC(2026, 0, 1, 9));
let base = clock.now();

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url, TEST_GATEWAY: 'on' }, clock });
  shop = await setUpShop(t);
  // Another worker process: its own pool on PostgreSQL.
  second = secondWorker(t);
});
afterAll(async () => {
  await second?.close();
  await t.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.clear();
  base += 30 * DAY;
  clock.set(base);
});

const deps = () => ({ config: t.config, marketingEmailOf });
/** The worker's scan at `now`: the app's clock (the worker's, which runs the mails it queues) moves there. */
const scan = (now: number, database = t.database) => {
  clock.set(now);
  return scanBasketReminders(database.db, deps(), now);
};
/** A scan at `now` and the outbox run: how many reminders the scan queued. */
async function remind(now: number): Promise<number> {
  const queued = await scan(now);
  await t.drainJobs();
  return queued;
}

const bearer = (customer: TestCustomer) => ({ bearer: customer.token });

/** A retail client who has given the EMAIL marketing consent (PUT /client-account), unless told not to. */
async function client(options: { consent?: boolean; store?: string; ofUser?: TestCustomer; discountPercent?: number } = {}) {
  const customer = await createCustomer(t.database.db, {
    store: options.store,
    ofUser: options.ofUser,
    discountPercent: options.discountPercent,
  });
  if (options.consent !== false && !options.ofUser) await setConsent(customer, true);
  return { ...customer, email: await emailOf(t.database.db, customer) };
}

async function setConsent(customer: TestCustomer, email: boolean) {
  const response = await call(t, 'PUT', '/client-account', bearer(customer), { marketingConsents: { email } });
  expect(response.statusCode, response.body).toBe(200);
}

/** A header's value as sent, unfolded (mailparser reads the List-* headers into an object of its own). */
const headerOf = (mail: ParsedMail, key: string) =>
  mail.headerLines
    .find((line) => line.key === key)
    ?.line.replace(/\r?\n[ \t]+/g, ' ')
    .replace(/^[^:]+:\s*/, '');
const mailsTo = (email: string) => smtp.mails.filter((mail) => recipientsOf(mail).includes(email));
/** A book ordered from the supplier (WEEKS_2_4): orderable without stock. */
const book = (name: string, price = 10, stores = ['WEB']) =>
  createProduct(t.database.db, { name, price, stores, deliveryTime: 'WEEKS_2_4' });

describe('a basket left alone', () => {
  it('is reminded once after 25 h with its own lines at the client’s price, a link and List-Unsubscribe; not at 23 h, not after 8 days, never a guest’s', async () => {
    const alice = await client({ discountPercent: 10 });
    const bob = await client();
    const names = ['Kevad', 'Suvi', 'Sügis', 'Talv', 'Öö', 'Päev', 'Hommik', 'Peidetud'];
    const products: number[] = [];
    for (const [index, name] of names.entries()) products.push(await book(name, 10 + index));
    for (const product of products) await add(t, bearer(alice), product, 2);
    await add(t, bearer(bob), await book('Bobi raamat', 7));
    // Bob reads his mail in Russian: the reminder follows his account's language.
    expect((await call(t, 'PUT', '/client-account', bearer(bob), { language: 'ru' })).statusCode).toBe(200);
    // A guest's basket changed at the same time: guests are never reminded.
    await add(t, {}, products[0]!);
    // Hidden since it was put in the basket: left out of the mail (and not counted in "more").
    await t.database.db.updateTable('product').set({ hidden_web: true }).where('id', '=', products[7]!).execute();
    // Carol's basket is 8 days quiet at the scan: no longer reminded of.
    clock.set(base + 25 * HOUR - 8 * DAY);
    const carol = await client();
    await add(t, bearer(carol), await book('Vana korv'));
    clock.set(base + HOUR);

    expect(await remind(base + 23 * HOUR)).toBe(0);
    expect(smtp.mails).toEqual([]);

    expect(await remind(base + 25 * HOUR)).toBe(2);
    expect(smtp.mails).toHaveLength(2);
    const [toAlice] = mailsTo(alice.email);
    expect(toAlice).toBeDefined();
    expect(toAlice!.subject).toBe('Teie ostukorv ootab – Main store');
    // The prices GET /basket shows her now (her 10 % off), in the basket's order; five named, then how many more.
    const shown = (await read(t, bearer(alice))).items.filter((item) => item.available);
    expect(shown).toHaveLength(7);
    const text = toAlice!.text ?? '';
    for (const item of shown.slice(0, 5))
      expect(text).toContain(`- ${item.name} – 2 × ${formatEuros(Math.round(item.unitPrice * 100), 'et')}`);
    expect(shown[0]!.unitPrice).toBe(9);
    expect(text).not.toContain('Päev');
    expect(text).toContain('- …ja veel 2');
    expect(text).not.toContain('Peidetud');
    expect(text).not.toContain('Bobi raamat');
    expect(text).toContain('http://localhost:5173/basket');
    expect(toAlice!.html).toContain('<a href="http://localhost:5173/basket">');
    const unsubscribe = headerOf(toAlice!, 'list-unsubscribe');
    expect(unsubscribe).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/newsletter\/unsubscribe\?/);
    expect(unsubscribe).toContain(`email=${encodeURIComponent(alice.email)}`);
    expect(unsubscribe).toContain('store=WEB&');
    expect(headerOf(toAlice!, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    // Bob's mail is his basket alone.
    const toBob = mailsTo(bob.email);
    expect(toBob).toHaveLength(1);
    expect(toBob[0]!.subject).toBe('Ваша корзина ждёт вас – Main store');
    expect(toBob[0]!.text).toContain(`- Bobi raamat – 1 × ${formatEuros(700, 'ru')}`);
    expect(toBob[0]!.text).not.toContain('Kevad');
    expect(mailsTo(carol.email)).toEqual([]);

    // Reminded: the next scans send nothing, and the basket's version (its ETag) is as it was.
    const version = (await read(t, bearer(alice))).version;
    smtp.clear();
    expect(await remind(base + 25 * HOUR + 10 * 60_000)).toBe(0);
    expect(await remind(base + 3 * DAY)).toBe(0);
    expect(smtp.mails).toEqual([]);
    expect((await read(t, bearer(alice))).version).toBe(version);
  });

  it('is scanned along the index made for it', async () => {
    const dave = await client();
    await add(t, bearer(dave), await book('Indeks'));
    const recorded = recordingStatements(t.database.db);
    clock.set(base + 25 * HOUR);
    expect(await scanBasketReminders(recorded.db, deps(), base + 25 * HOUR)).toBe(1);
    const walk = recorded.statements.find((statement) => /from "basket" as "b"/.test(statement.sql) && /order by/.test(statement.sql));
    expect(walk, recorded.statements.map((statement) => statement.sql).join('\n')).toBeDefined();
    const plan = await planOfStatement(t.database.db, walk!);
    expect(plan).toContain('basket_reminder_due_idx');
    await t.drainJobs();
  });
});

describe('who is mailed', () => {
  it('only an active client with the email consent, the email channel on and a confirmed login email; checked again when the mail is sent', async () => {
    const control = await client();
    const noConsent = await client({ consent: false });
    const channelOff = await client();
    const unconfirmed = await client();
    const erased = await client();
    const withdrawsLater = await client();
    const removed = await client();
    const everyone = [control, noConsent, channelOff, unconfirmed, erased, withdrawsLater, removed];
    for (const customer of everyone) await add(t, bearer(customer), await book(`Raamat ${customer.clientCode}`));

    const channel = await call(t, 'PUT', '/client-account/preferences', bearer(channelOff), { channels: { email: false } });
    expect(channel.statusCode, channel.body).toBe(200);
    await markLoginEmailUnconfirmed(t.database.db, await userIdOf(t.database.db, unconfirmed), base);
    const erasure = await call(t, 'DELETE', '/client-account', bearer(erased), {});
    expect(erasure.statusCode, erasure.body).toBe(204);
    // Removed from a company (modules/companies): the account is kept with its basket, and never mailed.
    await t.database.db.updateTable('client_account').set({ status: 'REMOVED' }).where('id', '=', removed.clientAccountId).execute();

    // Claimed for control and withdrawsLater; the latter withdraws the consent before the mail goes.
    expect(await scan(base + 25 * HOUR)).toBe(2);
    await setConsent(withdrawsLater, false);
    await t.drainJobs();
    expect(smtp.mails.flatMap(recipientsOf), JSON.stringify(everyone.map((c) => c.email))).toEqual([control.email]);
  });
});

describe('the claim', () => {
  it('two scans at once queue one mail', async () => {
    const erik = await client();
    await add(t, bearer(erik), await book('Kaks skannimist'));
    const now = base + 25 * HOUR;
    const [a, b] = await Promise.all([scan(now), scan(now, second.database)]);
    expect(a + b).toBe(1);
    await Promise.all([t.jobs.worker.drain(), second.jobs.worker.drain()]);
    expect(mailsTo(erik.email)).toHaveLength(1);
  });

  it('a basket changed after its reminder is reminded again after another quiet day, but one person gets one reminder in 7 days across stores', async () => {
    const fiona = await client();
    // Her account in the outlet, same person: both baskets are due at once, one is reminded.
    const outlet = await createCustomer(t.database.db, { store: 'WEB2', ofUser: fiona });
    const both = ['WEB', 'WEB2'];
    await add(t, bearer(fiona), await book('Esimene', 10, both));
    await add(t, { ...bearer(outlet), store: 'WEB2' }, await book('Outleti raamat', 5, both));
    expect(await remind(base + 25 * HOUR)).toBe(1);
    expect(mailsTo(fiona.email)).toHaveLength(1);

    clock.set(base + 2 * DAY);
    await add(t, bearer(fiona), await book('Teine', 10, both));
    smtp.clear();
    // 25 h after the change, but 2 days after her reminder: throttled, and so is the outlet basket.
    expect(await remind(base + 3 * DAY + HOUR)).toBe(0);
    expect(await remind(base + 7 * DAY)).toBe(0);
    expect(smtp.mails).toEqual([]);
    // 7 days after the first reminder: one of her baskets again (the changed one is 6 days quiet).
    const again = base + 25 * HOUR + 7 * DAY + 60_000;
    expect(await remind(again)).toBe(1);
    expect(mailsTo(fiona.email)).toHaveLength(1);

    // The hourly maintenance drops her throttle's row once it throttles nothing.
    const userId = await userIdOf(t.database.db, fiona);
    const row = () => t.database.db.selectFrom('basket_reminder_recipient').select('reminded_at').where('user_id', '=', userId).execute();
    await basketReminderPruning()(t.database.db, again + 6 * DAY);
    expect(await row()).toEqual([{ reminded_at: again }]);
    await basketReminderPruning()(t.database.db, again + 7 * DAY);
    expect(await row()).toEqual([]);
  });

  it('the time of the last reminder is the person’s data: in their export, gone with their erasure', async () => {
    const kati = await client();
    await add(t, bearer(kati), await book('Andmed'));
    expect(await remind(base + 25 * HOUR)).toBe(1);
    const exported = await call(t, 'GET', '/client-account/export', bearer(kati));
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().basketReminders.lastReminderAt).toBe(new Date(base + 25 * HOUR).toISOString().replace('.000Z', 'Z'));
    const userId = await userIdOf(t.database.db, kati);
    const rows = () => t.database.db.selectFrom('basket_reminder_recipient').select('user_id').where('user_id', '=', userId).execute();
    expect(await rows()).toHaveLength(1);
    const erasure = await call(t, 'DELETE', '/client-account', bearer(kati), {});
    expect(erasure.statusCode, erasure.body).toBe(204);
    expect(await rows()).toEqual([]);
  });

  it('a basket checked out, emptied or changed between the claim and the send gets no mail', async () => {
    const gert = await client();
    const hanna = await client();
    const ivo = await client();
    const jaan = await client();
    for (const customer of [gert, hanna, ivo, jaan]) await add(t, bearer(customer), await book(`Vahepeal ${customer.clientCode}`));
    expect(await scan(base + 25 * HOUR)).toBe(4);
    clock.set(base + 25 * HOUR);
    basketOf(await call(t, 'DELETE', '/basket/clear', bearer(gert)));
    await add(t, bearer(hanna), await book('Juurde'));
    const placed = await checkout(t, bearer(jaan), checkoutForm(shop));
    expect(placed.statusCode, placed.body).toBe(200);
    await t.drainJobs();
    // Mails to the order's contact (mari@example.ee) are the order's own.
    const reminded = smtp.mails.flatMap(recipientsOf).filter((address) => address !== 'mari@example.ee');
    expect(reminded).toEqual([ivo.email]);
  });
});

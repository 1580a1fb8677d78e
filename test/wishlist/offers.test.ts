import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCatalogue, type Catalogue } from '../../src/modules/catalogue/index.js';
import { wishlistOfferRecipient, wishlistOfferRecipients } from '../../src/modules/profile/index.js';
import { scanWishlistOffers } from '../../src/modules/wishlist/index.js';
import { wishlistOfferScan } from '../../src/worker.js';
import { recipientsOf } from '../back-in-stock/helpers.js';
import { importLines } from '../basket/import-helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { recordingDatabase } from '../helpers/recording-database.js';
import { explainable, explainStatement, tablesOf } from '../helpers/whole-reads.js';
import { createCustomer, emailOf, userIdOf, type TestCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { secondWorker } from '../helpers/second-worker.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Wishlist offers through the real outbox and SMTP: a client who turned them on (and gave the email
// marketing consent) is mailed once when a product on their wishlist costs them at least 5 % less than
// the price remembered for it; prices change through the back office's prices import. The scan is
// called with its time, as the worker would call it; two workers race on PostgreSQL with two pools.

let t: TestApp;
let smtp: SmtpCatcher;
let second: ReturnType<typeof secondWorker>;
let scanHere: (now: number) => Promise<number>;
let scanThere: (now: number) => Promise<number>;

const DAY = 86_400_000;

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  t = await createTestApp({ env: { SMTP_URL: smtp.url } });
  second = secondWorker(t);
  scanHere = wishlistOfferScan(t.database, t.config);
  scanThere = wishlistOfferScan(second.database, t.config);
});
afterAll(async () => {
  await second.close();
  await t.close();
  await smtp.close();
});
beforeEach(() => smtp.clear());

const db = () => t.database.db;
const auth = (client: TestCustomer) => ({ authorization: `Bearer ${client.token}` });

async function put(client: TestCustomer, url: string, payload: object) {
  const response = await t.app.inject({ method: 'PUT', url, headers: auth(client), payload });
  expect(response.statusCode, response.body).toBe(200);
}

/** A retail client; by default with the email consent and wishlist offers turned on, as the front end does it. */
async function client(options: { discountPercent?: number; consent?: boolean; offers?: boolean; language?: string } = {}) {
  const customer = await createCustomer(db(), { discountPercent: options.discountPercent });
  const profile = {
    ...((options.consent ?? true) ? { marketingConsents: { email: true } } : {}),
    ...(options.language ? { language: options.language } : {}),
  };
  if (Object.keys(profile).length > 0) await put(customer, '/client-account', profile);
  if (options.offers ?? true) await put(customer, '/client-account/preferences', { notifications: { wishlistOffers: true } });
  return customer;
}

async function wish(customer: TestCustomer, ...productIds: number[]) {
  for (const productId of productIds) {
    const response = await t.app.inject({ method: 'POST', url: '/wishlist', headers: auth(customer), payload: { productId } });
    expect(response.statusCode, response.body).toBe(201);
  }
}

/** New shop prices (euros) through the back office's prices import. */
async function setPrices(prices: Record<number, number>) {
  const codes = await db().selectFrom('product').select(['id', 'code']).where('id', 'in', Object.keys(prices).map(Number)).execute();
  const lines = codes.map((row) => ({ product: row.code, shopPrice: prices[Number(row.id)] }));
  const imported = await importLines(t, 'prices', lines);
  expect(imported.statusCode, imported.body).toBe(200);
}

/** One scan at `now` and the outbox run: the mails it sent. */
async function scan(now: number): Promise<ParsedMail[]> {
  const before = smtp.mails.length;
  await scanHere(now);
  await t.drainJobs();
  return smtp.mails.slice(before);
}

const mailsTo = async (mails: ParsedMail[], customer: TestCustomer) => {
  const email = await emailOf(db(), customer);
  return mails.filter((mail) => recipientsOf(mail).includes(email));
};

const remembered = async (customer: TestCustomer, productId: number) =>
  (
    await db()
      .selectFrom('wishlist_item')
      .select('offer_price_cents')
      .where('client_account_id', '=', customer.clientAccountId)
      .where('product_id', '=', productId)
      .executeTakeFirstOrThrow()
  ).offer_price_cents;

describe('a lower price on the wishlist', () => {
  it('mails an opted-in client once, with the old and new prices and links, and the unsubscribe headers; under 5 % and other clients get nothing', async () => {
    const cheaper = await createProduct(db(), { name: 'Odavam raamat', price: 20 });
    const barely = await createProduct(db(), { name: 'Peaaegu sama', price: 20 });
    const anna = await client({ language: 'en' });
    const notOptedIn = await client({ offers: false });
    await wish(anna, cheaper, barely);
    await wish(notOptedIn, cheaper, barely);
    // Scans in the past: the mail jobs they queue are due when the outbox runs.
    const now = Date.now() - 10 * DAY;
    expect(await scan(now)).toEqual([]);

    // 5 % exactly, and 4 %.
    await setPrices({ [cheaper]: 19, [barely]: 19.2 });
    const mails = await scan(now + 1000);
    expect(mails).toHaveLength(1);
    const [mail] = await mailsTo(mails, anna);
    expect(mail!.subject).toBe('Lower prices on your wishlist – Main store');
    expect(mail!.text).toContain(`Odavam raamat: now €19.00 (was €20.00) – http://localhost:5173/product/${cheaper}`);
    expect(mail!.html).toContain(`href="http://localhost:5173/product/${cheaper}"`);
    expect(mail!.text).toContain('http://localhost:5173/wishlist');
    expect(mail!.text).toContain('notification preferences: http://localhost:5173/account/preferences');
    expect(mail!.text).not.toContain('Peaaegu sama');
    // The newsletter's one-click unsubscribe, as on every marketing mail (the raw header lines).
    const header = (name: string) => (mail!.headerLines.find((line) => line.key === name)?.line ?? '').replace(/\r\n\s+/g, ' ');
    expect(header('list-unsubscribe')).toMatch(/^List-Unsubscribe: <http\S*\/newsletter\/unsubscribe\?\S*signature=\w+>$/);
    expect(header('list-unsubscribe-post')).toBe('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(await remembered(anna, cheaper)).toBe(1900);
    expect(await remembered(anna, barely)).toBe(2000);

    // Told once: later scans, even past the interval, send nothing more.
    expect(await scan(now + 2000)).toEqual([]);
    expect(await scan(now + 8 * DAY)).toEqual([]);
  });

  it('is the price the client sees: a client with a discount is told their own prices', async () => {
    const product = await createProduct(db(), { name: 'Allahindlusega', price: 20 });
    const regular = await client();
    const discounted = await client({ discountPercent: 10 });
    await wish(regular, product);
    await wish(discounted, product);
    expect(await remembered(discounted, product)).toBe(1800);

    // 20 -> 18.90 for everybody; 18.00 -> 17.01 for the 10 % client (5.5 %).
    await setPrices({ [product]: 18.9 });
    const mails = await scan(Date.now());
    const [toRegular] = await mailsTo(mails, regular);
    const [toDiscounted] = await mailsTo(mails, discounted);
    expect(toRegular!.text).toContain('Allahindlusega: nüüd 18,90 € (enne 20,00 €)');
    expect(toDiscounted!.text).toContain('Allahindlusega: nüüd 17,01 € (enne 18,00 €)');
    expect(toDiscounted!.subject).toBe('Teie soovinimekirja tooted on odavamad – Main store');
  });

  it('leaves out a product hidden from the client, and one that cannot be ordered until it can', async () => {
    const shown = await createProduct(db(), { name: 'Nähtav', price: 30 });
    const hidden = await createProduct(db(), { name: 'Peidetud', price: 30 });
    const soldOut = await createProduct(db(), { name: 'Läbi müüdud', price: 30 });
    const customer = await client();
    await wish(customer, shown, hidden, soldOut);
    await setPrices({ [shown]: 20, [hidden]: 20, [soldOut]: 20 });
    await db().updateTable('product').set({ hidden_web: true }).where('id', '=', hidden).execute();
    await db().updateTable('product').set({ availability: 'TEMPORARILY_OUT_OF_STOCK' }).where('id', '=', soldOut).execute();
    const start = Date.now() - 10 * DAY;
    const [mail, ...more] = await mailsTo(await scan(start), customer);
    expect(more).toEqual([]);
    expect(mail!.text).toContain('Nähtav');
    expect(mail!.text).not.toContain('Peidetud');
    expect(mail!.text).not.toContain('Läbi müüdud');
    expect(await remembered(customer, hidden)).toBe(3000);
    expect(await remembered(customer, soldOut)).toBe(3000);
    // Orderable again: the offer it waited with is told by the next mail.
    await db().updateTable('product').set({ availability: 'AVAILABLE' }).where('id', '=', soldOut).execute();
    const [later] = await mailsTo(await scan(start + 7 * DAY), customer);
    expect(later!.text).toContain('Läbi müüdud: nüüd 20,00 € (enne 30,00 €)');
  });

  it('gives an item from before wishlist offers a price at the first scan, and mails nothing for it', async () => {
    const product = await createProduct(db(), { name: 'Vana rida', price: 20 });
    const customer = await client();
    await wish(customer, product);
    await db()
      .updateTable('wishlist_item')
      .set({ offer_price_cents: null })
      .where('client_account_id', '=', customer.clientAccountId)
      .execute();
    await setPrices({ [product]: 15 });
    expect(await mailsTo(await scan(Date.now()), customer)).toEqual([]);
    expect(await remembered(customer, product)).toBe(1500);
  });
});

describe('who is mailed', () => {
  it('nobody without the switch, the email channel, the consent, a confirmed login email, or a live account', async () => {
    const product = await createProduct(db(), { name: 'Kellelegi', price: 20 });
    const switchOff = await client({ offers: false });
    const channelOff = await client();
    await put(channelOff, '/client-account/preferences', { channels: { email: false } });
    const noConsent = await client({ consent: false });
    const unconfirmed = await client();
    const erased = await client();
    const eligible = await client();
    const everyone = [switchOff, channelOff, noConsent, unconfirmed, erased, eligible];
    for (const customer of everyone) await wish(customer, product);
    await db()
      .insertInto('unconfirmed_login_email')
      .values({ user_id: await userIdOf(db(), unconfirmed), since: Date.now() })
      .execute();
    const gone = await t.app.inject({ method: 'DELETE', url: '/client-account', headers: auth(erased), payload: {} });
    expect(gone.statusCode, gone.body).toBe(204);

    await setPrices({ [product]: 15 });
    const mails = await scan(Date.now());
    for (const customer of everyone.slice(0, -1)) expect(await mailsTo(mails, customer)).toEqual([]);
    expect(await mailsTo(mails, eligible)).toHaveLength(1);
    // The erasure took the items and the mail row with it.
    expect(await db().selectFrom('wishlist_item').select('id').where('client_account_id', '=', erased.clientAccountId).execute()).toEqual(
      [],
    );
  });

  it('asks again when the mail is sent: consent withdrawn after the scan sends nothing, and the job ends done', async () => {
    const product = await createProduct(db(), { name: 'Meelemuutus', price: 20 });
    const customer = await client();
    await wish(customer, product);
    await setPrices({ [product]: 15 });
    expect(await scanHere(Date.now())).toBeGreaterThanOrEqual(1);
    await put(customer, '/client-account', { marketingConsents: { email: false } });
    await t.drainJobs();
    expect(await mailsTo(smtp.mails, customer)).toEqual([]);
    const jobs = await db()
      .selectFrom('job')
      .select(['status', 'result'])
      .where('type', '=', 'wishlist.offer-mail')
      .where('payload', 'like', `{"clientAccountId":${customer.clientAccountId},%`)
      .execute();
    expect(jobs).toEqual([{ status: 'done', result: 'skipped' }]);
  });
});

describe('one mail', () => {
  it('when two workers scan at once', async () => {
    const product = await createProduct(db(), { name: 'Võidujooks', price: 20 });
    // Several clients, so that the racing scans' reads and claims interleave.
    const customers = [];
    for (let i = 0; i < 5; i += 1) customers.push(await client());
    for (const customer of customers) await wish(customer, product);
    await setPrices({ [product]: 15 });
    const now = Date.now();
    const queued = await Promise.all([scanHere(now), scanThere(now), scanHere(now), scanThere(now)]);
    expect(queued.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(customers.length);
    await Promise.all([t.jobs.worker.drain(), second.jobs.worker.drain()]);
    for (const customer of customers) expect(await mailsTo(smtp.mails, customer)).toHaveLength(1);
  });

  it('per interval: a second offer waits for it; a price that rises and falls again is a new offer', async () => {
    const first = await createProduct(db(), { name: 'Esimene pakkumine', price: 20 });
    const later = await createProduct(db(), { name: 'Teine pakkumine', price: 40 });
    const customer = await client();
    await wish(customer, first, later);
    const start = Date.now() - 20 * DAY;
    await setPrices({ [first]: 15 });
    expect(await mailsTo(await scan(start), customer)).toHaveLength(1);

    // Within the 7 days: waits, and is neither lost nor remembered.
    await setPrices({ [later]: 30 });
    expect(await mailsTo(await scan(start + DAY), customer)).toEqual([]);
    expect(await remembered(customer, later)).toBe(4000);
    const [afterInterval, ...more] = await mailsTo(await scan(start + 7 * DAY), customer);
    expect(more).toEqual([]);
    expect(afterInterval!.text).toContain('Teine pakkumine: nüüd 30,00 € (enne 40,00 €)');
    expect(afterInterval!.text).not.toContain('Esimene pakkumine');

    // The sale ends (raised silently) and comes back: a new offer.
    await setPrices({ [first]: 20 });
    expect(await mailsTo(await scan(start + 14 * DAY), customer)).toEqual([]);
    expect(await remembered(customer, first)).toBe(2000);
    await setPrices({ [first]: 15 });
    const [again] = await mailsTo(await scan(start + 15 * DAY), customer);
    expect(again!.text).toContain('Esimene pakkumine: nüüd 15,00 € (enne 20,00 €)');
  });
});

describe("the person's data", () => {
  it('shows the remembered prices and the last offer mail in the export, and the erasure takes both', async () => {
    const product = await createProduct(db(), { name: 'Isikuandmed', price: 20 });
    const customer = await client();
    await wish(customer, product);
    await setPrices({ [product]: 15 });
    expect(await mailsTo(await scan(Date.now()), customer)).toHaveLength(1);
    const exported = await t.app.inject({ url: '/client-account/export', headers: auth(customer) });
    expect(exported.statusCode, exported.body).toBe(200);
    expect(exported.json().wishlist).toEqual([expect.objectContaining({ productId: product, rememberedPriceCents: 1500 })]);
    expect(exported.json().wishlistOfferMails).toEqual([{ clientCode: customer.clientCode, lastQueuedAt: expect.any(String) }]);
    const gone = await t.app.inject({ method: 'DELETE', url: '/client-account', headers: auth(customer), payload: {} });
    expect(gone.statusCode, gone.body).toBe(204);
    const id = customer.clientAccountId;
    expect(await db().selectFrom('wishlist_item').select('id').where('client_account_id', '=', id).execute()).toEqual([]);
    expect(await db().selectFrom('wishlist_offer_mail').selectAll().where('client_account_id', '=', id).execute()).toEqual([]);
  });
});

describe('an erasure during the scan', () => {
  it('leaves no offer mail row and queues no mail for the erased client', async () => {
    const product = await createProduct(db(), { name: 'Kustutatud', price: 20 });
    const customer = await client();
    await wish(customer, product);
    await setPrices({ [product]: 15 });
    // The scan has read the client's wishlist and priced it when the client erases themselves.
    const catalogue = createCatalogue({ database: t.database, config: t.config });
    let erased = false;
    const erasing: Catalogue = Object.create(catalogue);
    erasing.cards = async (...args: Parameters<Catalogue['cards']>) => {
      const cards = await catalogue.cards(...args);
      if (!erased && args[0].caller.clientAccountId === customer.clientAccountId) {
        erased = true;
        const gone = await t.app.inject({ method: 'DELETE', url: '/client-account', headers: auth(customer), payload: {} });
        expect(gone.statusCode, gone.body).toBe(204);
      }
      return cards;
    };
    const recipients = { page: wishlistOfferRecipients, one: wishlistOfferRecipient };
    await scanWishlistOffers({ db: db(), catalogue: erasing, config: t.config.wishlist, recipients }, Date.now());
    expect(erased).toBe(true);
    const id = customer.clientAccountId;
    expect(await db().selectFrom('wishlist_offer_mail').selectAll().where('client_account_id', '=', id).execute()).toEqual([]);
    const jobs = await db()
      .selectFrom('job')
      .select('id')
      .where('type', '=', 'wishlist.offer-mail')
      .where('payload', 'like', `{"clientAccountId":${id},%`)
      .execute();
    expect(jobs).toEqual([]);
  });
});

describe('the scan', () => {
  it('reads nothing whole: the opted-in clients a keyset page at a time, the rest by keys', async () => {
    const product = await createProduct(db(), { name: 'Indeksiga', price: 20 });
    const customer = await client();
    await wish(customer, product);
    await setPrices({ [product]: 15 });
    const recorder = recordingDatabase(t.database);
    const recordedScan = wishlistOfferScan(recorder.handle, t.config);
    recorder.start();
    expect(await recordedScan(Date.now())).toBeGreaterThanOrEqual(1);
    const statements = recorder.stop().filter(explainable);
    const tables = await tablesOf(db());
    let pages = 0;
    for (const statement of statements) {
      const { plan, reads } = await explainStatement(db(), statement, tables);
      // The bindings' names are reference data the catalogue reads whole, once per version (plan-sweep's REFERENCE_TABLES).
      const growing = reads.filter((read) => read.table !== 'binding_name');
      expect(growing, `${statement.sql}\n${plan}`).toEqual([]);
      // The page of opted-in clients: from their index alone, not every client's preferences.
      if (/^select .* from "client_preference" where/.test(statement.sql)) {
        pages += 1;
        expect(plan, statement.sql).toContain('client_preference_wishlist_offers_idx');
      }
    }
    expect(pages).toBe(1);
  });
});

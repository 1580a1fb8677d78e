import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { toRfc3339 } from '../../src/db/time.js';
import { checksumSecret } from '../../src/modules/orders/checksum.js';
import { giftKeys } from '../../src/modules/orders/gift-key.js';
import { changeStore } from '../../src/modules/store/index.js';
import { createCustomer } from '../helpers/customers.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import type { TestApp } from '../helpers/test-app.js';
import { checkout, checkoutForm, createListeningApp, fill, orderLink, setUpShop, type Shop } from '../orders/helpers.js';
import { ebook, payOnTestGateway, productCode } from '../orders/purchase-helpers.js';

// An e-book bought for someone else (the checkout's receiver, another email than the buyer's): the receiver's
// order mail said the buyer had it to hand on, and nothing gave the receiver the book. Its mail now carries a
// key of its own (the front-end's GIFT_DOWNLOADS_PATH page) that lists the order's files and links them, counted
// against the purchase's downloads as the buyer's are, shows nothing else of the order, ends with its time and
// with the receiver's data; the buyer keeps their own downloads (the order's page).

const LIMIT = 3;
let t: TestApp;
let shop: Shop;
let smtp: SmtpCatcher;
let fileDir: string;
let operatorKey: string;
const RECEIVER = { shippingName: 'Jaan Tamm', shippingEmail: 'jaan@example.ee' };

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-files-'));
  ({ t } = await createListeningApp({ env: { SMTP_URL: smtp.url, FILE_STORE_DIR: fileDir, DOWNLOAD_LIMIT: String(LIMIT) } }));
  shop = await setUpShop(t);
  operatorKey = await createApiKey(t.database.db, 'files', Date.now());
});
afterAll(async () => {
  await t?.close();
  await smtp?.close();
  if (fileDir) rmSync(fileDir, { recursive: true, force: true });
});

const mailTo = (code: string, address: string) =>
  smtp.waitFor((mail) => mail.subject?.includes(code) === true && JSON.stringify(mail.to).includes(address));

const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { 'x-app-language': 'en', ...headers } });

interface Gift {
  code: string;
  orderId: number;
  checksum: string;
  bytes: Buffer;
  /** The receiver's key, from their mail. */
  key: string;
  receiverMail: string;
  buyerMail: string;
}

/** A guest's paid order of an e-book (its EPUB uploaded) for the receiver, in English; the key of the receiver's mail. */
async function giftEbook(receiver: { shippingName: string; shippingEmail: string } = RECEIVER): Promise<Gift> {
  const productId = await ebook(t, 9);
  const bytes = randomBytes(3_000);
  const uploaded = await t.app.inject({
    method: 'PUT',
    url: `/admin/product-files/${await productCode(t.database.db, productId)}/EPUB`,
    headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  const who = await fill(t, {}, [[productId, 1]]);
  const placed = await checkout(t, who, checkoutForm(shop, { deliveryMethodId: undefined, ...receiver }), { 'x-app-language': 'en' });
  expect(placed.statusCode, placed.body).toBe(200);
  const link = orderLink(placed.json().location);
  await payOnTestGateway(t, link.path);
  await t.drainJobs();
  const { code } = await t.database.db.selectFrom('customer_order').select('code').where('id', '=', link.orderId).executeTakeFirstOrThrow();
  const receiverMail = await mailTo(code!, receiver.shippingEmail);
  const page = /(https?:\/\/\S+\/gift-downloads\?key=([^&\s]+)&language=en)/.exec(receiverMail.text ?? '');
  expect(page, receiverMail.text).not.toBeNull();
  const buyer = await mailTo(code!, 'mari@example.ee');
  return {
    code: code!,
    orderId: link.orderId,
    checksum: link.checksum,
    bytes,
    key: page![2]!,
    receiverMail: receiverMail.text ?? '',
    buyerMail: buyer.text ?? '',
  };
}

interface Item {
  id: string;
  downloadsUsed: number;
}

async function giftItems(key: string): Promise<Item[]> {
  const list = await get(`/gift-download/${key}`);
  expect(list.statusCode, list.body).toBe(200);
  return list.json() as Item[];
}

/** Downloads the item through a link of the receiver's key: the link's answer. */
async function receiverDownload(key: string, id: string) {
  const link = await get(`/gift-download/${key}/${id}/link`);
  if (link.statusCode !== 200) return link;
  return get(new URL((link.json() as { url: string }).url).pathname);
}

describe('an e-book bought for someone else', () => {
  it("gives its receiver a key of their own in their mail: the file, counted against the purchase's downloads", async () => {
    const gift = await giftEbook();
    expect(gift.receiverMail).toContain('Mari Maasikas gave you the e-books and audiobooks in it');
    expect(gift.receiverMail).not.toContain('hand on to you');
    // Nothing of the buyer's: no link to the order's page (its checksum reads the whole order).
    expect(gift.receiverMail).not.toContain(gift.checksum);
    expect(gift.buyerMail).toContain('sent them a link to download its e-books and audiobooks');

    const [item] = await giftItems(gift.key);
    expect(item).toMatchObject({ id: expect.stringMatching(new RegExp(`^${gift.orderId}-\\d+$`)), downloadsUsed: 0 });
    const file = await receiverDownload(gift.key, item!.id);
    expect(file.statusCode, file.body).toBe(200);
    expect(file.rawPayload.equals(gift.bytes)).toBe(true);
    expect((await giftItems(gift.key))[0]!.downloadsUsed).toBe(1);

    // The buyer keeps theirs (the order's page), and the two count together up to the limit.
    const buyerList = await get(`/order/${gift.code}/download?checksum=${gift.checksum}`);
    expect((buyerList.json() as Item[])[0]!.downloadsUsed).toBe(1);
    const buyerLink = await get(`/order/${gift.code}/download/${item!.id}/link?checksum=${gift.checksum}`);
    expect((await get(new URL((buyerLink.json() as { url: string }).url).pathname)).statusCode).toBe(200);
    expect((await receiverDownload(gift.key, item!.id)).statusCode).toBe(200);
    expect((await giftItems(gift.key))[0]!.downloadsUsed).toBe(LIMIT);
    expect((await receiverDownload(gift.key, item!.id)).statusCode).toBe(403);
  });

  it('shows nothing else: another order, an altered key, the order itself', async () => {
    const gift = await giftEbook();
    const other = await giftEbook();
    const [item] = await giftItems(gift.key);
    // The other order's item under this key: not one of its files.
    const [otherItem] = await giftItems(other.key);
    expect((await get(`/gift-download/${gift.key}/${otherItem!.id}/link`)).statusCode).toBe(404);
    const [orderId, expiresAt, mac] = gift.key.split('.') as [string, string, string];
    for (const forged of [`${other.orderId}.${expiresAt}.${mac}`, `${orderId}.${Number(expiresAt) + 86_400_000}.${mac}`, 'nothing']) {
      expect((await get(`/gift-download/${forged}`)).statusCode, forged).toBe(404);
      expect((await get(`/gift-download/${forged}/${item!.id}/link`)).statusCode, forged).toBe(404);
    }
    // The key is no checksum: it does not read the order (the buyer's address, what was paid).
    expect((await get(`/order/${gift.code}?checksum=${gift.key}`)).statusCode).toBe(404);
  });

  it("ends with the receiver's data: an erased receiver's key and links give nothing", async () => {
    const gift = await giftEbook();
    const [item] = await giftItems(gift.key);
    const link = await get(`/gift-download/${gift.key}/${item!.id}/link`);
    const madeBefore = new URL((link.json() as { url: string }).url).pathname;
    // The receiver has an account with that address and asks for the erasure.
    const receiver = await createCustomer(t.database.db);
    const account = await t.database.db
      .selectFrom('client_account')
      .select('user_id')
      .where('id', '=', receiver.clientAccountId)
      .executeTakeFirstOrThrow();
    await t.database.db.updateTable('app_user').set({ email: 'jaan@example.ee' }).where('id', '=', account.user_id).execute();
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { authorization: `Bearer ${receiver.token}`, store: 'WEB' },
      payload: {},
    });
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    expect((await get(`/gift-download/${gift.key}`)).statusCode).toBe(403);
    expect((await get(`/gift-download/${gift.key}/${item!.id}/link`)).statusCode).toBe(403);
    expect((await get(madeBefore)).statusCode).toBe(403);
    // The buyer's own downloads stay.
    expect((await get(`/order/${gift.code}/download?checksum=${gift.checksum}`)).statusCode).toBe(200);
  });

  it("outlives the buyer's erasure (the receiver's own), and ends with its time", async () => {
    const gift = await giftEbook();
    // Delivered (the back office completed them): an open order would refuse the erasure.
    await t.database.db.updateTable('customer_order').set({ status: 'COMPLETED' }).where('billing_email', '=', 'mari@example.ee').execute();
    const buyer = await createCustomer(t.database.db);
    const account = await t.database.db
      .selectFrom('client_account')
      .select('user_id')
      .where('id', '=', buyer.clientAccountId)
      .executeTakeFirstOrThrow();
    await t.database.db.updateTable('app_user').set({ email: 'mari@example.ee' }).where('id', '=', account.user_id).execute();
    const erased = await t.app.inject({
      method: 'DELETE',
      url: '/client-account',
      headers: { authorization: `Bearer ${buyer.token}`, store: 'WEB' },
      payload: {},
    });
    expect(erased.statusCode, erased.body).toBeLessThan(300);
    const [item] = await giftItems(gift.key);
    expect((await receiverDownload(gift.key, item!.id)).statusCode).toBe(200);
    // A genuine key past its time (GIFT_DOWNLOAD_TTL after the processing): a 403 that says until when it worked.
    const keys = giftKeys(await checksumSecret(t.database.db, undefined, Date.now()));
    const expired = keys.of({ orderId: gift.orderId, expiresAt: Date.now() - 1000 });
    const answer = await get(`/gift-download/${expired}`);
    expect(answer.statusCode, answer.body).toBe(403);
    expect(answer.json().message).toContain('ended on');
    expect((await get(`/gift-download/${expired}/${item!.id}/link`)).statusCode).toBe(403);
  });
});

describe("the gift routes and the store header (the spec's store-scoped actions)", () => {
  it("answer an order's gifts in the order's store only, and 400/423 as every store-scoped route", async () => {
    const gift = await giftEbook();
    const [item] = await giftItems(gift.key);
    // The WEB order's key asked through the outlet: as an order of another store, nothing (the receiver's page is
    // the WEB front-end's, which sends WEB).
    expect((await get(`/gift-download/${gift.key}`, { store: 'WEB2' })).statusCode).toBe(404);
    expect((await get(`/gift-download/${gift.key}/${item!.id}/link`, { store: 'WEB2' })).statusCode).toBe(404);
    expect((await get(`/gift-download/${gift.key}`, { store: 'WEB' })).statusCode).toBe(200);
    const unknown = await get(`/gift-download/${gift.key}`, { store: 'NOPE' });
    expect(unknown.statusCode, unknown.body).toBe(400);
    await changeStore(t.database.db, 'WEB', { isLocked: true }, Date.now());
    try {
      expect((await get(`/gift-download/${gift.key}`, { store: 'WEB' })).statusCode).toBe(423);
      expect((await get(`/gift-download/${gift.key}/${item!.id}/link`, { store: 'WEB' })).statusCode).toBe(423);
    } finally {
      await changeStore(t.database.db, 'WEB', { isLocked: false, lockedUntil: null }, Date.now());
    }
    // None of it used a download.
    expect((await giftItems(gift.key))[0]!.downloadsUsed).toBe(0);
  });
});

/** A customer logged in with that address (their login email, confirmed). */
async function customerWithEmail(email: string) {
  const customer = await createCustomer(t.database.db);
  const account = await t.database.db
    .selectFrom('client_account')
    .select('user_id')
    .where('id', '=', customer.clientAccountId)
    .executeTakeFirstOrThrow();
  await t.database.db.updateTable('app_user').set({ email }).where('id', '=', account.user_id).execute();
  return customer;
}

describe("the receiver's data", () => {
  it('lists the gifts received in their export: the order date, titles and last day, nothing of the buyer', async () => {
    const gift = await giftEbook({ shippingName: 'Kati Kask', shippingEmail: 'kati@example.ee' });
    const receiver = await customerWithEmail('kati@example.ee');
    const exported = await get('/client-account/export', { authorization: `Bearer ${receiver.token}`, store: 'WEB' });
    expect(exported.statusCode, exported.body).toBe(200);
    const order = await t.database.db
      .selectFrom('customer_order')
      .select(['created_at'])
      .where('id', '=', gift.orderId)
      .executeTakeFirstOrThrow();
    const { giftsReceived } = exported.json() as { giftsReceived: { items: Array<Record<string, unknown>> } };
    expect(giftsReceived.items).toHaveLength(1);
    const [item] = giftsReceived.items;
    expect(item).toMatchObject({
      orderedAt: toRfc3339(Number(order.created_at)),
      store: 'WEB',
      titles: [expect.any(String)],
    });
    expect(typeof item!.lastDay, JSON.stringify(item)).toBe('string');
    // The day the receiver's mail named.
    expect(gift.receiverMail).toContain(`until ${String(item!.lastDay)}`);
    // The buyer's data is the buyer's: no name, address, code or sum of theirs.
    const part = JSON.stringify(giftsReceived);
    for (const buyers of ['Mari', 'mari@example.ee', gift.code]) expect(part).not.toContain(buyers);
  });
});

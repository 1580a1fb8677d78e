import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backInStockPruning, scanBackInStock } from '../../src/modules/back-in-stock/index.js';
import { hashToken } from '../../src/infra/tokens.js';
import { createAccountsTestApp, mailsTo, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { createProduct } from '../helpers/catalogue.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';
import { askBackInStock, backInStockToken, confirmationMailTo, confirmBackInStock } from './helpers.js';

// Double opt-in of a guest's back-in-stock request, through HTTP and the real SMTP catcher: the
// request mails only a link to confirm it, the restock mail goes only once the link is followed,
// an unconfirmed request is never told and is pruned when its link expires, and following the link
// again (or twice at once) answers the same and confirms once. A logged-in client with a confirmed
// login email is not asked to confirm.

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({
    env: {
      BACK_IN_STOCK_RATE_LIMIT_PER_IP: '100000/1h',
      BACK_IN_STOCK_RATE_LIMIT_PER_EMAIL: '100000/1h',
      BACK_IN_STOCK_CONFIRM_RATE_LIMIT_PER_IP: '100000/1m',
    },
  });
});
afterAll(() => t.close());

const DAY = 86_400_000;
const db = () => t.database.db;
const soldOut = (name = 'Läbi müüdud') => createProduct(db(), { name, availability: 'TEMPORARILY_OUT_OF_STOCK' });
const restock = (product: number) => db().updateTable('product').set({ web_stock: 5 }).where('id', '=', product).execute();
const rowOf = (email: string, product: number) =>
  db().selectFrom('back_in_stock_request').selectAll().where('email', '=', email).where('product_id', '=', product).executeTakeFirst();
/** One scan of the worker, then its outbox: answers how many restock mails were queued. */
async function scanAndSend(now = Date.now()) {
  const queued = await scanBackInStock(db(), now);
  await t.drainJobs();
  return queued;
}
const restockMails = (email: string) =>
  mailsTo(t, email).filter((mail) => /available again|jälle saadaval|снова в наличии/.test(mail.subject ?? ''));
const expectLater = (iso: string, fromNow: number) => expect(Math.abs(Date.parse(iso) - Date.now() - fromNow)).toBeLessThan(60_000);

describe("a guest's request waits for its address to confirm it", () => {
  it('mails a link to confirm and nothing else; an unconfirmed request is not told on restock; once confirmed it is', async () => {
    const product = await soldOut('Kinnitamata raamat');
    const email = uniqueEmail('bis-guest');
    const asked = await askBackInStock(t, { productId: product, email: email.toUpperCase() }, { 'x-app-language': 'en' });
    expect(asked.statusCode, asked.body).toBe(202);
    expect(Object.keys(asked.json()).sort()).toEqual(['email', 'expiresAt', 'productId']);
    expect(asked.json()).toMatchObject({ productId: product, email });
    expectLater(asked.json().expiresAt, 14 * DAY);

    const mail = await confirmationMailTo(t, t.smtp, email);
    expect(mailsTo(t, email)).toHaveLength(1);
    expect(mail.subject).toBe('Confirm: tell you when Kinnitamata raamat is back – Main store');
    const token = backInStockToken(mail);
    expect(mail.text).toContain(`http://localhost:5173/back-in-stock/confirm?backInStockToken=${token}`);
    expect(mail.html).toContain(`href="http://localhost:5173/back-in-stock/confirm?backInStockToken=${token}"`);
    // Only the token's hash is kept; the request waits unconfirmed until the link's end (2 days).
    const waiting = (await rowOf(email, product))!;
    expect(waiting).toMatchObject({ confirmed_at: null, notified_at: null, token_hash: hashToken(token) });
    expect(JSON.stringify(waiting)).not.toContain(token);
    expect(Math.abs(Number(waiting.expires_at) - Date.now() - 2 * DAY)).toBeLessThan(60_000);

    // Back in stock before the address confirmed: nobody is told.
    await restock(product);
    expect(await scanAndSend()).toBe(0);
    expect(mailsTo(t, email)).toHaveLength(1);

    const confirmed = await confirmBackInStock(t, token);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.headers['cache-control']).toBe('no-store');
    expect(confirmed.json()).toEqual({ productId: product, email, expiresAt: expect.any(String) });
    expectLater(confirmed.json().expiresAt, 14 * DAY);
    const row = (await rowOf(email, product))!;
    expect(row.confirmed_at).not.toBeNull();
    expect(Number(row.expires_at)).toBe(Date.parse(confirmed.json().expiresAt));

    expect(await scanAndSend()).toBe(1);
    expect(restockMails(email)).toHaveLength(1);
    expect(restockMails(email)[0]!.subject).toBe('Kinnitamata raamat is available again – Main store');
    expect(mailsTo(t, email)).toHaveLength(2);
  });

  it('writes the confirmation mail in Estonian and Russian as asked', async () => {
    const product = await soldOut('Keeleraamat');
    const et = uniqueEmail('bis-et');
    const ru = uniqueEmail('bis-ru');
    expect((await askBackInStock(t, { productId: product, email: et }, { 'x-app-language': 'et' })).statusCode).toBe(202);
    expect((await askBackInStock(t, { productId: product, email: ru }, { 'x-app-language': 'ru' })).statusCode).toBe(202);
    expect((await confirmationMailTo(t, t.smtp, et)).subject).toBe('Kinnitage: teatame, kui Keeleraamat on tagasi – Main store');
    expect((await confirmationMailTo(t, t.smtp, ru)).subject).toBe('Подтвердите: сообщим, когда Keeleraamat снова появится – Main store');
  });

  it('mails nothing more for the same request again within minutes, nor for a request the address confirmed', async () => {
    const product = await soldOut();
    const email = uniqueEmail('bis-again');
    const first = await askBackInStock(t, { productId: product, email });
    const again = await askBackInStock(t, { productId: product, email });
    expect(again.statusCode).toBe(202);
    expect(Object.keys(again.json()).sort()).toEqual(Object.keys(first.json()).sort());
    const mail = await confirmationMailTo(t, t.smtp, email);
    await t.drainJobs();
    expect(mailsTo(t, email)).toHaveLength(1);

    expect((await confirmBackInStock(t, backInStockToken(mail))).statusCode).toBe(200);
    const confirmed = (await rowOf(email, product))!;
    await pastResubmitWindow(db());
    const later = await askBackInStock(t, { productId: product, email });
    expect(later.statusCode).toBe(202);
    expect(later.json()).toEqual({ productId: product, email, expiresAt: expect.any(String) });
    expectLater(later.json().expiresAt, 14 * DAY);
    await t.drainJobs();
    expect(mailsTo(t, email)).toHaveLength(1);
    expect(await rowOf(email, product)).toEqual(confirmed);
  });

  it('answers a link followed again, or twice at once, as the first time and confirms once', async () => {
    const product = await soldOut();
    const email = uniqueEmail('bis-twice');
    await askBackInStock(t, { productId: product, email });
    const token = backInStockToken(await confirmationMailTo(t, t.smtp, email));
    const first = await confirmBackInStock(t, token);
    expect(first.statusCode, first.body).toBe(200);
    const row = await rowOf(email, product);
    const again = await confirmBackInStock(t, token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(await rowOf(email, product)).toEqual(row);

    // Twice at once, a few times over (whether two really overlap is the engine's and the scheduler's).
    const pairs = [uniqueEmail('bis-both'), uniqueEmail('bis-both'), uniqueEmail('bis-both')];
    for (const both of pairs) {
      await askBackInStock(t, { productId: product, email: both });
      const bothToken = backInStockToken(await confirmationMailTo(t, t.smtp, both));
      const answers = await Promise.all([confirmBackInStock(t, bothToken), confirmBackInStock(t, bothToken)]);
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
      expect(answers[0]!.json()).toEqual(answers[1]!.json());
      expect(Number((await rowOf(both, product))!.expires_at)).toBe(Date.parse(answers[0]!.json().expiresAt));
    }

    // One restock mail each.
    await restock(product);
    expect(await scanAndSend()).toBe(4);
    expect(await scanAndSend()).toBe(0);
    for (const each of [email, ...pairs]) expect(restockMails(each)).toHaveLength(1);
  });

  it('asks again for a confirmation when a guest asks once the request was told, and sends no restock mail before it', async () => {
    const product = await soldOut();
    const email = uniqueEmail('bis-rearm');
    await askBackInStock(t, { productId: product, email });
    const first = backInStockToken(await confirmationMailTo(t, t.smtp, email));
    expect((await confirmBackInStock(t, first)).statusCode).toBe(200);
    await restock(product);
    // Claimed by the scan, its mail queued but not sent yet, when the product sells out again and the
    // address is asked for again.
    expect(await scanBackInStock(db(), Date.now())).toBe(1);
    await db().updateTable('product').set({ web_stock: 0 }).where('id', '=', product).execute();
    await pastResubmitWindow(db());
    expect((await askBackInStock(t, { productId: product, email })).statusCode).toBe(202);
    // The link of the first confirmation no longer confirms anything, even before the new one is mailed.
    expectErrorBody(await confirmBackInStock(t, first), 400, 'Bad Request');
    const second = backInStockToken(await confirmationMailTo(t, t.smtp, email));
    expect(second).not.toBe(first);
    expect(restockMails(email)).toEqual([]);
    await restock(product);
    expectErrorBody(await confirmBackInStock(t, first), 400, 'Bad Request');
    expect(await scanAndSend()).toBe(0);

    expect((await confirmBackInStock(t, second)).statusCode).toBe(200);
    expect(await scanAndSend()).toBe(1);
    expect(restockMails(email)).toHaveLength(1);
  });

  it('refuses an unknown, expired or malformed token with 400 and a body without one with 422, changing nothing', async () => {
    const product = await soldOut();
    const email = uniqueEmail('bis-late');
    await askBackInStock(t, { productId: product, email });
    const token = backInStockToken(await confirmationMailTo(t, t.smtp, email));
    const before = (await rowOf(email, product))!;

    expectErrorBody(await confirmBackInStock(t, 'A'.repeat(43)), 400, 'Bad Request');
    expectErrorBody(await confirmBackInStock(t, 'not a token'), 400, 'Bad Request');
    expectErrorBody(await confirmBackInStock(t, `${token}x`), 400, 'Bad Request');
    expectFieldErrors(await confirmBackInStock(t, 42));
    expectFieldErrors(await confirmBackInStock(t, ''));
    expectFieldErrors(await confirmBackInStock(t, 'x'.repeat(201)));
    expectFieldErrors(await t.app.inject({ method: 'POST', url: '/back-in-stock/confirm', payload: {} }));
    expect(await rowOf(email, product)).toEqual(before);

    // The link's lifetime (BACK_IN_STOCK_CONFIRM_TOKEN_TTL) has passed.
    await db()
      .updateTable('back_in_stock_request')
      .set({ expires_at: Date.now() - 1 })
      .where('id', '=', before.id)
      .execute();
    const expired = expectErrorBody(await confirmBackInStock(t, token, { 'x-app-language': 'en' }), 400, 'Bad Request');
    expect(expired.message).toBe('The confirmation link is invalid or has expired.');
    expect((await rowOf(email, product))!.confirmed_at).toBeNull();
  });

  it('prunes an unconfirmed request when its link expires, and keeps a confirmed one 14 days', async () => {
    const product = await soldOut();
    const waiting = uniqueEmail('bis-prune-waiting');
    const confirmed = uniqueEmail('bis-prune-confirmed');
    await askBackInStock(t, { productId: product, email: waiting });
    await askBackInStock(t, { productId: product, email: confirmed });
    await confirmBackInStock(t, backInStockToken(await confirmationMailTo(t, t.smtp, confirmed)));
    await confirmationMailTo(t, t.smtp, waiting);

    await backInStockPruning()(db(), Date.now() + 2 * DAY + 60_000);
    expect(await rowOf(waiting, product)).toBeUndefined();
    expect(await rowOf(confirmed, product)).toBeDefined();
    await backInStockPruning()(db(), Date.now() + 14 * DAY + 60_000);
    expect(await rowOf(confirmed, product)).toBeUndefined();
  });
});

describe('a logged-in client with a confirmed login email', () => {
  it('is told without a confirmation mail (201, then 200)', async () => {
    const product = await soldOut();
    const email = uniqueEmail('bis-client');
    const token = await registerVerified(t, email);
    const mailsBefore = mailsTo(t, email).length;
    const made = await askBackInStock(t, { productId: product }, { authorization: `Bearer ${token}` });
    expect(made.statusCode, made.body).toBe(201);
    expect((await rowOf(email, product))!.confirmed_at).not.toBeNull();
    await restock(product);
    expect(await scanAndSend()).toBe(1);
    expect(restockMails(email)).toHaveLength(1);
    expect(mailsTo(t, email)).toHaveLength(mailsBefore + 1);

    // Sold out again: asked again, the same request is re-armed at once.
    await db().updateTable('product').set({ web_stock: 0 }).where('id', '=', product).execute();
    expect((await askBackInStock(t, { productId: product }, { authorization: `Bearer ${token}` })).statusCode).toBe(200);
    await restock(product);
    expect(await scanAndSend()).toBe(1);
    expect(restockMails(email)).toHaveLength(2);
    expect(mailsTo(t, email)).toHaveLength(mailsBefore + 2);
  });
});

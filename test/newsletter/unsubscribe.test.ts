import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailsTo, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import {
  confirm,
  confirmationMailTo,
  newsletterToken,
  oneClick,
  oneClickMultipart,
  oneClickPath,
  subscribe,
  subscribeConfirmed,
  subscriberRows,
} from './helpers.js';
import { newsletterMailHandler, newsletterUnsubscribeHeaders } from '../../src/modules/newsletter/index.js';
import { afterFirstRead } from '../helpers/overlapping-writes.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(() => t.close());

/** The path of the link with one query parameter replaced. */
function withParam(path: string, name: string, value: string): string {
  const url = new URL(path, 'http://x');
  url.searchParams.set(name, value);
  return `${url.pathname}${url.search}`;
}

describe('POST /newsletter/unsubscribe', () => {
  it('withdraws the subscription in one click (RFC 8058 form POST, no store header) and keeps the time', async () => {
    const email = uniqueEmail('unsub');
    const mail = await subscribeConfirmed(t, email, 'en', 'WEB2');
    const before = Date.now();
    const response = await oneClick(t, oneClickPath(mail));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    const [row] = await subscriberRows(t, email);
    expect(row!.store_code).toBe('WEB2');
    expect(Number(row!.withdrawn_at)).toBeGreaterThanOrEqual(before);
    // Mail clients may repeat it: the same answer.
    expect((await oneClick(t, oneClickPath(mail))).statusCode).toBe(200);
  });

  it('also takes a JSON or empty POST (the front-end page of the mail text)', async () => {
    const email = uniqueEmail('unsub-json');
    const path = oneClickPath(await subscribeConfirmed(t, email));
    const json = await t.app.inject({ method: 'POST', url: path, payload: {} });
    expect(json.statusCode, json.body).toBe(200);
    expect((await subscriberRows(t, email))[0]!.withdrawn_at).not.toBeNull();
    expect((await t.app.inject({ method: 'POST', url: path })).statusCode).toBe(200);
  });

  it("takes RFC 8058's multipart/form-data one-click POST too, and refuses one over the size of such a form", async () => {
    const email = uniqueEmail('unsub-multipart');
    const path = oneClickPath(await subscribeConfirmed(t, email));
    const response = await oneClickMultipart(t, path);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect((await subscriberRows(t, email))[0]!.withdrawn_at).not.toBeNull();
    expect((await oneClickMultipart(t, path)).statusCode).toBe(200);

    const other = uniqueEmail('unsub-multipart-huge');
    const otherPath = oneClickPath(await subscribeConfirmed(t, other));
    const huge = await t.app.inject({
      method: 'POST',
      url: otherPath,
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: `--x\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\n${'x'.repeat(5000)}\r\n--x--\r\n`,
    });
    expectErrorBody(huge, 413, 'Payload Too Large');
    expect((await subscriberRows(t, other))[0]!.withdrawn_at).toBeNull();
  });

  it('refuses a tampered signature, another address or another store with 403 and changes nothing', async () => {
    const email = uniqueEmail('unsub-tamper');
    const path = oneClickPath(await subscribeConfirmed(t, email));
    const signature = new URL(path, 'http://x').searchParams.get('signature')!;
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    for (const forged of [
      withParam(path, 'signature', flipped),
      withParam(path, 'signature', 'nonsense'),
      withParam(path, 'email', uniqueEmail('victim')),
      withParam(path, 'email', email.toUpperCase()),
      withParam(path, 'store', 'WEB2'),
    ]) {
      expectErrorBody(await oneClick(t, forged), 403, 'Forbidden');
    }
    expect((await subscriberRows(t, email))[0]!.withdrawn_at).toBeNull();
  });

  it('cancels a pending confirmation link: unsubscribe from the confirmation mail sticks', async () => {
    const email = uniqueEmail('unsub-pending');
    await subscribe(t, { email, language: 'en' });
    const mail = await confirmationMailTo(t, email);
    expect((await oneClick(t, oneClickPath(mail))).statusCode).toBe(200);
    expectErrorBody(await confirm(t, newsletterToken(mail)), 400, 'Bad Request');
    expect(await subscriberRows(t, email)).toEqual([]);
  });

  it('an unsubscribe that commits while the confirmation mail is being made cancels it: no mail, no working link', async () => {
    const db = t.database.db;
    const email = uniqueEmail('unsub-racing');
    expect((await subscribe(t, { email, language: 'en' })).statusCode).toBe(200);
    const request = await db.selectFrom('newsletter_request').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    // The signed link of an earlier mail to the address, followed after the worker read the request.
    const headers = await newsletterUnsubscribeHeaders(db, t.config, { email, storeCode: 'WEB' }, Date.now());
    const url = new URL(/^<(.+)>$/.exec(headers['List-Unsubscribe']!)![1]!);
    const unsubscribing = async () => expect((await oneClick(t, `${url.pathname}${url.search}`)).statusCode).toBe(200);
    const job = newsletterMailHandler({
      db: afterFirstRead(db, 'newsletter_request', unsubscribing),
      config: t.config,
      mailer: t.jobs.mailer,
    });
    expect(await job({ kind: 'confirmation', requestId: request.id }, {} as never)).toBe('cancelled');
    await t.drainJobs();
    expect(mailsTo(t, email)).toEqual([]);
    const row = await db.selectFrom('newsletter_request').selectAll().where('id', '=', request.id).executeTakeFirstOrThrow();
    expect(row.token_hash).toBeNull();
    expect(Number(row.expires_at)).toBeLessThanOrEqual(Date.now());
    expect(await subscriberRows(t, email)).toEqual([]);
  });

  it('a confirmation mail sent again (a retry after a failed send) still goes, and only its link works', async () => {
    const email = uniqueEmail('unsub-retry');
    await subscribe(t, { email, language: 'en' });
    const first = newsletterToken(await confirmationMailTo(t, email));
    const request = await t.database.db.selectFrom('newsletter_request').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const job = newsletterMailHandler({ db: t.database.db, config: t.config, mailer: t.jobs.mailer });
    expect(await job({ kind: 'confirmation', requestId: request.id }, {} as never)).toBe('sent');
    const again = await t.smtp.waitFor((mail) => JSON.stringify(mail.to).includes(email) && !(mail.text ?? '').includes(first));
    const second = newsletterToken(again);
    expectErrorBody(await confirm(t, first), 400, 'Bad Request');
    expect((await confirm(t, second)).statusCode).toBe(200);
  });

  it('subscribing again after a withdrawal records a new consent', async () => {
    const email = uniqueEmail('unsub-again');
    const mail = await subscribeConfirmed(t, email, 'en');
    await oneClick(t, oneClickPath(mail));
    await subscribeConfirmed(t, email, 'ru');
    const rows = await subscriberRows(t, email);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ language: 'ru', withdrawn_at: null });
  });

  it("clears a client's app_user.newsletter", async () => {
    const email = uniqueEmail('unsub-client');
    await registerVerified(t, email);
    const mail = await subscribeConfirmed(t, email);
    const flag = async () =>
      Boolean(
        (await t.database.db.selectFrom('app_user').select('newsletter').where('email', '=', email).executeTakeFirstOrThrow()).newsletter,
      );
    expect(await flag()).toBe(true);
    await oneClick(t, oneClickPath(mail));
    expect(await flag()).toBe(false);
  });

  it('answers bad input with 4xx', async () => {
    const email = uniqueEmail('unsub-bad');
    const path = oneClickPath(await subscribeConfirmed(t, email));
    expect((await oneClick(t, '/newsletter/unsubscribe')).statusCode).toBe(400);
    expect((await oneClick(t, '/newsletter/unsubscribe?email=a%40b.ee&store=WEB')).statusCode).toBe(400);
    const text = await t.app.inject({ method: 'POST', url: path, headers: { 'content-type': 'text/plain' }, payload: 'x' });
    expect(text.statusCode).toBe(415);
    const huge = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `List-Unsubscribe=${'x'.repeat(5000)}`,
    });
    expect(huge.statusCode).toBe(413);
    // The form parser is this route's only: the other newsletter routes stay JSON-only.
    const form = await t.app.inject({
      method: 'POST',
      url: '/newsletter/confirm',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'token=x',
    });
    expect(form.statusCode).toBe(415);
    expect((await subscriberRows(t, email))[0]!.withdrawn_at).toBeNull();
  });

  it('newsletterUnsubscribeHeaders gives other marketing mails a working one-click link', async () => {
    const email = uniqueEmail('unsub-helper');
    await subscribeConfirmed(t, email);
    const headers = await newsletterUnsubscribeHeaders(t.database.db, t.config, { email, storeCode: 'WEB' }, Date.now());
    expect(headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    const url = new URL(/^<(.+)>$/.exec(headers['List-Unsubscribe']!)![1]!);
    expect((await oneClick(t, `${url.pathname}${url.search}`)).statusCode).toBe(200);
    expect((await subscriberRows(t, email))[0]!.withdrawn_at).not.toBeNull();
  });
});

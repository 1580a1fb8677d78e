import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountsTestApp, mailsTo, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { newsletterRequestPruning } from '../../src/modules/newsletter/index.js';
import { expectErrorBody } from '../helpers/http.js';
import { pastResubmitWindow } from '../helpers/resubmit.js';
import {
  confirm,
  confirmationMailTo,
  newsletterToken,
  oneClick,
  oneClickPath,
  rawHeader,
  subscribe,
  subscribeConfirmed,
  subscriberRows,
} from './helpers.js';

let t: AccountsTestApp;
beforeAll(async () => {
  // Many requests from one address; rate-limits.test.ts tests the limits.
  t = await createAccountsTestApp({ env: { NEWSLETTER_RATE_LIMIT_PER_IP: '100000/1m', NEWSLETTER_RATE_LIMIT_PER_EMAIL: '100000/1m' } });
});
afterAll(() => t.close());

const countOf = async (table: 'job' | 'newsletter_request' | 'rate_limit') =>
  Number(
    (
      await t.database.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('POST /newsletter/subscribe and /newsletter/confirm', () => {
  it('subscribes nobody until the mailed link is followed, then records consent time, store, language and source', async () => {
    const email = uniqueEmail('news');
    const response = await subscribe(t, { email: email.toUpperCase(), language: 'en', source: 'footer' }, { store: 'WEB2' });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({});
    expect(response.headers['cache-control']).toBe('no-store');
    expect(await subscriberRows(t, email)).toEqual([]);

    const mail = await confirmationMailTo(t, email);
    expect(mail.subject).toMatch(/^Confirm your newsletter subscription – /);
    expect(mail.text).toMatch(/http:\/\/localhost:\d+\/newsletter\/confirm\?newsletterToken=[A-Za-z0-9_-]{43}(\s|$)/);
    expect(await subscriberRows(t, email)).toEqual([]);
    // Only the token's hash is kept.
    const token = newsletterToken(mail);
    const stored = await t.database.db.selectFrom('newsletter_request').selectAll().where('email', '=', email).execute();
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(token);

    const before = Date.now();
    const confirmed = await confirm(t, token);
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toEqual({ email, store: 'WEB2', language: 'en' });
    const [row] = await subscriberRows(t, email);
    expect(row).toMatchObject({ email, store_code: 'WEB2', language: 'en', source: 'footer', withdrawn_at: null });
    expect(Number(row!.consented_at)).toBeGreaterThanOrEqual(before);
  });

  it('writes the mail in Estonian and Russian as asked', async () => {
    const et = uniqueEmail('news-et');
    const ru = uniqueEmail('news-ru');
    expect((await subscribe(t, { email: et, language: 'et' })).statusCode).toBe(200);
    expect((await subscribe(t, { email: ru, language: 'ru' })).statusCode).toBe(200);
    expect((await confirmationMailTo(t, et)).subject).toMatch(/^Kinnitage uudiskirja tellimus – /);
    expect((await confirmationMailTo(t, ru)).subject).toMatch(/^Подтвердите подписку на рассылку – /);
  });

  // A footer form asks for an address only; a missing language was a 422 on the field.
  it("takes the request's language when the form names none, else the store's default", async () => {
    const ru = uniqueEmail('news-header-ru');
    const plain = uniqueEmail('news-no-language');
    expect((await subscribe(t, { email: ru }, { 'x-app-language': 'ru' })).statusCode).toBe(200);
    expect((await subscribe(t, { email: plain }, { store: 'WEB2' })).statusCode).toBe(200);
    const ruMail = await confirmationMailTo(t, ru);
    expect(ruMail.subject).toMatch(/^Подтвердите подписку на рассылку – /);
    expect((await confirm(t, newsletterToken(ruMail))).json()).toEqual({ email: ru, store: 'WEB', language: 'ru' });
    const plainMail = await confirmationMailTo(t, plain);
    expect(plainMail.subject).toMatch(/^Kinnitage uudiskirja tellimus – /);
    expect((await confirm(t, newsletterToken(plainMail))).json()).toEqual({ email: plain, store: 'WEB2', language: 'et' });
  });

  it('carries List-Unsubscribe and List-Unsubscribe-Post on the confirmation mail', async () => {
    const email = uniqueEmail('news-hdr');
    await subscribe(t, { email, language: 'en' });
    const mail = await confirmationMailTo(t, email);
    expect(rawHeader(mail, 'List-Unsubscribe')).toMatch(
      /^<http:\/\/127\.0\.0\.1:3000\/newsletter\/unsubscribe\?email=[^&>]+&store=WEB&signature=[0-9a-f]{64}>$/,
    );
    expect(rawHeader(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    // The text's own way out is a front-end page with the same signed query.
    expect(mail.text).toMatch(/\/newsletter\/unsubscribe\?email=.+&store=WEB&signature=[0-9a-f]{64}/);
  });

  it('answers a link followed again, or twice at once, as the first time and records the consent once', async () => {
    const consents = async (email: string) =>
      (await t.database.db.selectFrom('integration_event').select('data').where('type', '=', 'consent.changed').execute()).filter(
        (row) => (JSON.parse(String(row.data)) as { email: string }).email === email,
      ).length;
    const email = uniqueEmail('news-again');
    const mail = await subscribeConfirmed(t, email);
    const [row] = await subscriberRows(t, email);
    const again = await confirm(t, newsletterToken(mail));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toEqual({ email, store: 'WEB', language: 'en' });
    expect(await subscriberRows(t, email)).toEqual([row]);
    expect(await consents(email)).toBe(1);

    const both = uniqueEmail('news-both');
    await subscribe(t, { email: both, language: 'en' });
    const token = newsletterToken(await confirmationMailTo(t, both));
    const answers = await Promise.all([confirm(t, token), confirm(t, token)]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    expect(answers[0]!.json()).toEqual(answers[1]!.json());
    expect(await subscriberRows(t, both)).toHaveLength(1);
    expect(await consents(both)).toBe(1);
  });

  it('refuses a followed link once its subscription was withdrawn, an expired, an unknown and a malformed token with 400', async () => {
    const email = uniqueEmail('news-used');
    const mail = await subscribeConfirmed(t, email);
    const withdrawn = await oneClick(t, oneClickPath(mail));
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expectErrorBody(await confirm(t, newsletterToken(mail)), 400, 'Bad Request');
    expect((await subscriberRows(t, email))[0]!.withdrawn_at).not.toBeNull();

    const late = uniqueEmail('news-late');
    await subscribe(t, { email: late, language: 'en' });
    const token = newsletterToken(await confirmationMailTo(t, late));
    // The link's lifetime has passed (NEWSLETTER_CONFIRM_TOKEN_TTL).
    await t.database.db
      .updateTable('newsletter_request')
      .set({ expires_at: Date.now() - 1 })
      .where('email', '=', late)
      .execute();
    expectErrorBody(await confirm(t, token), 400, 'Bad Request');
    expect(await subscriberRows(t, late)).toEqual([]);

    expectErrorBody(await confirm(t, 'A'.repeat(43)), 400, 'Bad Request');
    expectErrorBody(await confirm(t, 'not a token'), 400, 'Bad Request');
  });

  it('answers the same for a subscribed address and does the same work; only the new one gets a mail', async () => {
    const subscribed = uniqueEmail('news-known');
    await subscribeConfirmed(t, subscribed);
    const fresh = uniqueEmail('news-fresh');
    const mailsBefore = mailsTo(t, subscribed).length;
    // Asked again later: the same request within minutes is a double submit, which stores nothing more.
    await pastResubmitWindow(t.database.db);

    const answers = [];
    for (const email of [subscribed, fresh]) {
      const [jobs, requests] = [await countOf('job'), await countOf('newsletter_request')];
      const response = await subscribe(t, { email, language: 'en' });
      answers.push({ status: response.statusCode, body: response.body, type: response.headers['content-type'] });
      expect(await countOf('job')).toBe(jobs + 1);
      expect(await countOf('newsletter_request')).toBe(requests + 1);
    }
    expect(answers[0]).toEqual(answers[1]);

    await confirmationMailTo(t, fresh);
    await t.drainJobs();
    expect(mailsTo(t, subscribed)).toHaveLength(mailsBefore);
  });

  it("keeps a client's app_user.newsletter in step with the confirmed subscription", async () => {
    const email = uniqueEmail('news-client');
    await registerVerified(t, email);
    const flag = async () =>
      Boolean(
        (await t.database.db.selectFrom('app_user').select('newsletter').where('email', '=', email).executeTakeFirstOrThrow()).newsletter,
      );
    await subscribe(t, { email, language: 'et' });
    expect(await flag()).toBe(false);
    const token = newsletterToken(await confirmationMailTo(t, email));
    expect(await flag()).toBe(false);
    expect((await confirm(t, token)).statusCode).toBe(200);
    expect(await flag()).toBe(true);
  });

  it('refuses an address at a reserved domain as registration does (422 on email), storing, counting and mailing nothing', async () => {
    for (const email of ['mari@example.com', 'mari@mail.example.org', 'mari@shop.test', 'google.nomail-1@users.INVALID']) {
      const before = await Promise.all([countOf('newsletter_request'), countOf('job'), countOf('rate_limit')]);
      const response = await subscribe(t, { email, language: 'ru' }, { 'x-app-language': 'en' });
      expect(response.statusCode, email).toBe(422);
      expect(response.json()).toEqual([
        { field: 'email', message: 'This email address cannot be used; enter an address you receive mail at.' },
      ]);
      expect(await Promise.all([countOf('newsletter_request'), countOf('job'), countOf('rate_limit')])).toEqual(before);
    }
    // In the store's language by default; an address that only looks alike is taken.
    expect((await subscribe(t, { email: 'mari@example.net', language: 'et' })).json()).toEqual([
      { field: 'email', message: 'Seda e-posti aadressi ei saa kasutada; sisestage aadress, kuhu teile kirjad jõuavad.' },
    ]);
    expect((await subscribe(t, { email: uniqueEmail('mari').replace('@example.ee', '@myexample.com'), language: 'et' })).statusCode).toBe(
      200,
    );
  });

  it('answers bad input with 4xx in the documented shapes', async () => {
    for (const payload of [
      {},
      { email: 'not-an-email', language: 'en' },
      { email: 123, language: 'en' },
      { email: uniqueEmail(), language: 'de' },
      { email: uniqueEmail(), language: null },
      { email: `${'a'.repeat(250)}@example.ee`, language: 'en' },
      { email: uniqueEmail(), language: 'en', source: 'Bad Source!' },
      { email: `a\u0000b@example.ee`, language: 'en' },
    ]) {
      const response = await subscribe(t, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(422);
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/newsletter/subscribe',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%40example.ee&language=en',
    });
    expect(notJson.statusCode).toBe(415);
    const broken = await t.app.inject({
      method: 'POST',
      url: '/newsletter/subscribe',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    expect(broken.statusCode).toBe(400);
    expect((await confirm(t, 42)).statusCode).toBe(422);
    expect((await t.app.inject({ method: 'POST', url: '/newsletter/confirm', payload: {} })).statusCode).toBe(422);
    expect((await subscribe(t, { email: uniqueEmail(), language: 'en' }, { store: 'NOPE' })).statusCode).toBe(400);
  });
});

describe('pruning of requests', () => {
  it('deletes month-old requests whose links no longer work, and keeps live ones', async () => {
    const now = Date.now();
    const old = now - 31 * 86_400_000;
    const base = { store_code: 'WEB', language: 'en', source: 'website', token_hash: null, created_at: old };
    await t.database.db
      .insertInto('newsletter_request')
      .values([
        { ...base, email: 'prune-expired@example.ee', expires_at: old + 1000, confirmed_at: null },
        { ...base, email: 'prune-used@example.ee', expires_at: now + 1000, confirmed_at: old + 1000 },
        { ...base, email: 'prune-live@example.ee', expires_at: now + 86_400_000, confirmed_at: null },
        { ...base, email: 'prune-recent@example.ee', expires_at: now - 1, confirmed_at: null, created_at: now - 1000 },
      ])
      .execute();
    expect(await newsletterRequestPruning()(t.database.db, now)).toBeGreaterThanOrEqual(2);
    const left = await t.database.db
      .selectFrom('newsletter_request')
      .select('email')
      .where('email', 'like', 'prune-%')
      .orderBy('email')
      .execute();
    expect(left.map((row) => row.email)).toEqual(['prune-live@example.ee', 'prune-recent@example.ee']);
  });
});

import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAccountsTestApp,
  mailTo,
  mailsTo,
  me,
  register,
  tokenFromMail,
  uniqueEmail,
  verify,
  type AccountsTestApp,
} from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp();
});
afterAll(() => t.close());

async function pendingVerification(store = 'WEB') {
  const email = uniqueEmail();
  await register(t, email, store);
  return { email, token: tokenFromMail(await mailTo(t, email), 'verificationToken') };
}

const meta = (token: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/auth/verify-email-meta?verificationToken=${encodeURIComponent(token)}`, headers });

describe('GET /auth/verify-email-meta', () => {
  it('tells the verification page who is verifying', async () => {
    const { email, token } = await pendingVerification('WEB2');
    const response = await meta(token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      email,
      firstName: 'Mari',
      lastName: 'Maasikas',
      webStoreNavCode: 'WEB2',
      accountType: 'SIMPLE',
      companyName: null,
      hasPassword: false,
    });
  });

  it.each(['x', 'A'.repeat(43), 'not a token at all'])('answers 400 for an unknown token %j', async (token) => {
    expectErrorBody(await meta(token), 400, 'Bad Request');
  });

  it('answers 400 when the activation context is another store', async () => {
    const { token } = await pendingVerification('WEB');
    expectErrorBody(await meta(token, { store: 'WEB2' }), 400, 'Bad Request');
  });

  it('answers 400 when the account it activates is gone', async () => {
    const { email, token } = await pendingVerification();
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    await t.database.db.updateTable('app_user').set({ verification_client_account_id: 999_999 }).where('id', '=', user.id).execute();
    expectErrorBody(await meta(token), 400, 'Bad Request');
  });
});

describe('POST /auth/verify-email', () => {
  it('activates, sets the password, logs in and returns the token payload', async () => {
    const { email, token } = await pendingVerification('WEB2');
    const response = await verify(t, token, 'WEB2', { newsletter: true });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      accessToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      webStoreNavCode: 'WEB2',
      basket: expect.objectContaining({ id: null, items: [], itemCount: 0, total: 0, currency: 'EUR' }),
    });
    expect((await me(t, response.json().accessToken, 'WEB2')).json()).toMatchObject({ email, webStoreNavCode: 'WEB2' });
    const user = await t.database.db.selectFrom('app_user').selectAll().where('email', '=', email).executeTakeFirstOrThrow();
    expect(Boolean(user.email_verified)).toBe(true);
    expect(user.activated_at).toEqual(expect.any(Number));
    expect(user.password_hash).toMatch(/^\$argon2id\$/);
    expect(Boolean(user.newsletter)).toBe(true);
    expect(user.verification_token_hash).toBeNull();
    // The tick is a subscription: the link just confirmed the address, so no second opt-in mail is needed.
    const subscriptions = await t.database.db
      .selectFrom('newsletter_subscriber')
      .selectAll()
      .where('email', '=', email.toLowerCase())
      .execute();
    expect(subscriptions).toEqual([expect.objectContaining({ store_code: 'WEB2', source: 'registration', withdrawn_at: null })]);
  });

  it('subscribes nobody without the tick', async () => {
    const { email, token } = await pendingVerification();
    expect((await verify(t, token)).statusCode).toBe(200);
    expect(await t.database.db.selectFrom('newsletter_subscriber').select('id').where('email', '=', email.toLowerCase()).execute()).toEqual(
      [],
    );
  });

  it('is single use', async () => {
    const { token } = await pendingVerification();
    expect((await verify(t, token)).statusCode).toBe(200);
    expectErrorBody(await verify(t, token), 400, 'Bad Request');
  });

  it('refuses an expired token', async () => {
    const { email, token } = await pendingVerification();
    await t.database.db
      .updateTable('app_user')
      .set({ verification_expires_at: Date.now() - 1 })
      .where('email', '=', email)
      .execute();
    expectErrorBody(await verify(t, token), 400, 'Bad Request');
  });

  it('answers 400 for a missing or bad token before looking at the form', async () => {
    expectErrorBody(await t.app.inject({ method: 'POST', url: '/auth/verify-email', payload: {} }), 400, 'Bad Request');
    expectErrorBody(
      await t.app.inject({ method: 'POST', url: '/auth/verify-email?verificationToken=nope', payload: { password: 1 } }),
      400,
      'Bad Request',
    );
  });

  it('answers 400 when the store does not match the activation context', async () => {
    const { token } = await pendingVerification('WEB');
    expectErrorBody(await verify(t, token, 'WEB2'), 400, 'Bad Request');
  });

  it.each([
    [{ password: 'short1', passwordRepeat: 'short1' }, ['password']],
    [{ password: 'x'.repeat(129), passwordRepeat: 'x'.repeat(129) }, ['password']],
    [{ password: 'password123', passwordRepeat: 'password123' }, ['password']],
    [{ password: 'iloveyou1', passwordRepeat: 'iloveyou1' }, ['password']],
    [{ password: 'Mets-kohiseb-1', passwordRepeat: 'Mets-kohiseb-2' }, ['passwordRepeat']],
    [{ termsAccepted: false }, ['termsAccepted']],
    [{ termsAccepted: 'yes' }, ['termsAccepted']],
    [{ password: undefined }, ['password']],
  ])('refuses the form %j with a 422 and keeps the token usable', async (form, fields) => {
    const { token } = await pendingVerification();
    expect(expectFieldErrors(await verify(t, token, undefined, form)).sort()).toEqual(fields);
    expect((await verify(t, token)).statusCode).toBe(200);
  });

  it('refuses a password equal to the email', async () => {
    const { email, token } = await pendingVerification();
    expect(expectFieldErrors(await verify(t, token, undefined, { password: email, passwordRepeat: email }))).toEqual(['password']);
  });

  it('lets exactly one of two concurrent verifications with one token succeed', async () => {
    const { email, token } = await pendingVerification();
    const results = await Promise.all([verify(t, token), verify(t, token), verify(t, token)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 400, 400]);
    const tokens = await t.database.db
      .selectFrom('access_token')
      .innerJoin('app_user', 'app_user.id', 'access_token.user_id')
      .select('access_token.token_hash')
      .where('app_user.email', '=', email)
      .execute();
    expect(tokens).toHaveLength(1);
  });

  it('queues a CompleteRegistration event with the action time and the store', async () => {
    const { email, token } = await pendingVerification('WEB2');
    const response = await verify(t, token, 'WEB2');
    await t.drainJobs();
    const hashed = createHash('sha256').update(email).digest('hex');
    const received = await t.conversions.waitFor((r) => JSON.stringify(r.body).includes(hashed), 5000);
    expect(received.method).toBe('POST');
    expect(received.url).toBe('/pixel-1/events');
    expect(received.body).toEqual({
      access_token: 'capi-secret',
      data: [
        {
          event_name: 'CompleteRegistration',
          event_time: Number(response.headers['action-time']),
          event_id: expect.stringMatching(/^[0-9a-f]{64}$/),
          action_source: 'website',
          user_data: { em: [hashed] },
          custom_data: { web_store: 'WEB2' },
        },
      ],
    });
  });

  // Two apps, two registrations and two verifications (argon2 each): slow on a loaded machine.
  it('retries the event when the receiver fails, and skips it when not configured', async () => {
    const { token } = await pendingVerification();
    t.conversions.respondWith(500, { error: 'busy' });
    await verify(t, token);
    await t.drainJobs();
    const failed = await t.database.db
      .selectFrom('job')
      .selectAll()
      .where('type', '=', 'marketing.complete-registration')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(failed.status).toBe('pending');
    expect(failed.last_error).toContain('500');
    t.conversions.respondWith(200, {});
    await t.jobs.worker.drain({ includeDelayed: true });
    const sent = await t.database.db.selectFrom('job').selectAll().where('id', '=', failed.id).executeTakeFirstOrThrow();
    expect(sent.status).toBe('done');

    const unconfigured = await createAccountsTestApp({
      env: { CONVERSIONS_API_URL: '', CONVERSIONS_PIXEL_ID: '', CONVERSIONS_ACCESS_TOKEN: '' },
    });
    try {
      const email = uniqueEmail();
      await register(unconfigured, email);
      const verified = await verify(unconfigured, tokenFromMail(await mailTo(unconfigured, email), 'verificationToken'));
      expect(verified.statusCode).toBe(200);
      await unconfigured.drainJobs();
      const job = await unconfigured.database.db
        .selectFrom('job')
        .selectAll()
        .where('type', '=', 'marketing.complete-registration')
        .executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'done', result: 'skipped' });
    } finally {
      await unconfigured.close();
    }
  }, 60_000);
});

describe('a verification that replaces an existing password', () => {
  const businessForm = (email: string) => ({
    companyName: 'Raamatukoi OÜ',
    registryCode: '12345678',
    address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
    contact: { firstName: 'Juku', lastName: 'Tamm', email, phone: '+3725551234' },
  });

  it('ends the sessions opened with the earlier password', async () => {
    const email = uniqueEmail('biz');
    // A business contact verifies: a password and a session.
    expect((await t.app.inject({ method: 'POST', url: '/auth/register-business', payload: businessForm(email) })).statusCode).toBe(200);
    const firstToken = tokenFromMail(await mailTo(t, email, /Kinnitage/), 'verificationToken');
    const first = await verify(t, firstToken);
    expect(first.statusCode, first.body).toBe(200);
    const earlierSession = first.json().accessToken as string;
    expect((await me(t, earlierSession)).statusCode).toBe(200);

    // The same person registers as a retail customer: a simple account, and a verification that sets the password again.
    expect((await register(t, email)).statusCode).toBe(200);
    await t.drainJobs();
    const second = await t.smtp.waitFor(
      (mail) => mailsTo(t, email).includes(mail) && /verificationToken=/.test(mail.text ?? '') && !(mail.text ?? '').includes(firstToken),
    );
    const secondToken = tokenFromMail(second, 'verificationToken');
    expect((await meta(secondToken)).json()).toMatchObject({ email, hasPassword: true });
    const replaced = await verify(t, secondToken, undefined, { password: 'Uus-parool-kohiseb-7', passwordRepeat: 'Uus-parool-kohiseb-7' });
    expect(replaced.statusCode, replaced.body).toBe(200);

    expectErrorBody(await me(t, earlierSession), 401, 'Unauthorized');
    expect((await me(t, replaced.json().accessToken)).statusCode).toBe(200);
  });
});

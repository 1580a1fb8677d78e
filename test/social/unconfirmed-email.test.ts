import { sql } from 'kysely';
import type { ParsedMail } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as unconfirmedLoginEmail from '../../src/db/migrations/2026_11_29_0840_create_unconfirmed_login_email.js';
import { hashToken } from '../../src/infra/tokens.js';
import { scanBackInStock } from '../../src/modules/back-in-stock/index.js';
import { askConfirmed } from '../back-in-stock/helpers.js';
import { createClientAccount } from '../../src/modules/accounts/index.js';
import { createProduct } from '../helpers/catalogue.js';
import { GOOD_PASSWORD, login, mailsTo, mailTo, tokenFromMail, uniqueEmail, verify } from '../helpers/accounts.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { engine } from '../helpers/test-app.js';
import { createSocialTestApp, IOS_APP, newJti, newSubject, webFlow, type SocialTestApp } from '../helpers/social.js';
import { setUpShop, stockedBook, type Shop } from '../orders/helpers.js';
import { placeOrder } from '../orders/purchase-helpers.js';
import { as } from '../profile/helpers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { afterFirstRead } from '../helpers/overlapping-writes.js';
import { socialLogin } from '../../src/modules/social/social.service.js';

// Social accounts made before c508fc7 took the provider's address whether or not the provider had
// verified it (any Facebook one, Google's with email_verified false), and social_identity does not
// record which: such an account still saw what the shop keeps under somebody else's address (their
// guest orders, back-in-stock requests, gift cards sent to them). Migration 2026_11_29_0840 counts
// those accounts' login emails as not confirmed; what is kept by email reaches a user only while
// the login email is confirmed: by PUT /user/me with the same address and the link mailed to it, or
// by the provider saying verified at a later sign-in. A sign-up the provider vouched for has it at once.

let t: SocialTestApp;
let shop: Shop;

beforeAll(async () => {
  t = await createSocialTestApp();
  shop = await setUpShop(t);
});
afterAll(async () => {
  await t.close();
});

type Provider = 'google' | 'facebook';

/**
 * The rows a sign-up before c508fc7 left for a provider address nobody verified: an activated user
 * without a password under that address, a simple account, and the identity, all at one action
 * time. Then the migration runs over them, as it does on a database of that time.
 */
async function legacyAccount(provider: Provider, email: string): Promise<{ sub: string; userId: number }> {
  const db = t.database.db;
  const at = Date.now() - 86_400_000;
  const sub = newSubject();
  const user = await db
    .insertInto('app_user')
    .values({
      email,
      password_hash: null,
      email_verified: true,
      newsletter: false,
      activated_at: at,
      first_name: 'Ülle',
      language: 'et',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const userId = Number(user.id);
  await createClientAccount(db, { userId, storeCode: 'WEB', type: 'SIMPLE' }, at);
  await db.insertInto('social_identity').values({ provider, subject: sub, user_id: userId, email, created_at: at }).execute();
  await unconfirmedLoginEmail.down(db);
  await unconfirmedLoginEmail.up(db);
  return { sub, userId };
}

/** Signs in through the native flow; the provider says what `verified` says about `email`. */
async function signIn(provider: Provider, sub: string, email: string, verified: boolean) {
  const token =
    provider === 'google'
      ? await t.google.idToken({ sub, aud: IOS_APP, email, email_verified: verified, jti: newJti() })
      : t.facebook.issueToken({ id: sub, email });
  const external = await t.app.inject({ method: 'GET', url: `/auth/external?client=${provider}&id=${sub}&token=${token}` });
  expect(external.statusCode, external.body).toBe(200);
  return t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId: external.json().authId, isNativeForm: true } });
}

async function accessToken(provider: Provider, sub: string, email: string, verified: boolean): Promise<string> {
  const response = await signIn(provider, sub, email, verified);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().accessToken as string;
}

/** What the shop keeps under `email` that is not an account's: a guest order, a back-in-stock request, a gift card sent to it. */
async function keptUnder(email: string): Promise<string> {
  const book = await stockedBook(t, shop, 5);
  const name = `Ohver ${newSubject()}`;
  const soldOut = await createProduct(t.database.db, { availability: 'TEMPORARILY_OUT_OF_STOCK' });
  // Confirmed by the address through the link mailed to it (that mail is then forgotten); first, so
  // that the outbox it runs sends nothing of the order's.
  await askConfirmed(t, t.smtp, { productId: soldOut, email });
  await placeOrder(t, shop, {}, [[book, 1]], { form: { billingEmail: email, billingName: name, shippingName: name } });
  const now = Date.now();
  await t.database.db
    .insertInto('gift_card')
    .values({
      code_hmac: `hmac-${newSubject()}`,
      code_hint: 'H001',
      kind: 'VIRTUAL',
      initial_cents: 2500,
      balance_cents: 2500,
      expires_at: now + 365 * 86_400_000,
      buyer_client_account_id: null,
      recipient_name: name,
      recipient_email: email,
      message: 'Palju õnne',
      deliver_at: now,
      mailed_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return name;
}

/** What the user behind `token` is shown of what is kept under its email: the export's parts and the gift cards. */
async function seen(token: string) {
  const call = as(t, token);
  const exported = await call('GET', '/client-account/export');
  expect(exported.statusCode, exported.body).toBe(200);
  const cards = await call('GET', '/virtual-gift-card');
  expect(cards.statusCode, cards.body).toBe(200);
  const profile = await call('GET', '/client-account');
  expect(profile.statusCode, profile.body).toBe(200);
  return {
    orders: exported.json().orders.items.length as number,
    backInStock: exported.json().backInStockRequests.length as number,
    cards: (cards.json() as unknown[]).length,
    body: exported.body + cards.body,
    loginEmailConfirmed: exported.json().profile.loginEmailConfirmed as boolean,
    emailConfirmed: profile.json().emailConfirmed as boolean,
  };
}

const NOTHING = { orders: 0, backInStock: 0, cards: 0, loginEmailConfirmed: false, emailConfirmed: false };
const ALL = { orders: 1, backInStock: 1, cards: 1, loginEmailConfirmed: true, emailConfirmed: true };

function confirmToken(mail: ParsedMail): string {
  const match = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
  expect(match, mail.text).not.toBeNull();
  return match![1]!;
}

describe('an account made by social sign-up before the provider had to verify the email', () => {
  it('does not see what is kept under its email until it confirms the address through the link mailed to it', async () => {
    const email = uniqueEmail('victim-fb');
    const name = await keptUnder(email);
    const { sub } = await legacyAccount('facebook', email);
    const token = await accessToken('facebook', sub, email, false);

    const before = await seen(token);
    expect(before).toMatchObject(NOTHING);
    expect(before.body).not.toContain(name);

    // The same address again is the way to confirm it: the link goes to that mailbox.
    const asked = await as(t, token)('PUT', '/user/me', { email });
    expect(asked.statusCode, asked.body).toBe(200);
    expect(asked.json()).toEqual({ email, pendingEmail: email, passwordChanged: false });
    const mail = await mailTo(t, email);
    // Asking is not confirming.
    expect(await seen(token)).toMatchObject(NOTHING);
    const confirmed = await as(t, token)('POST', '/user/me/confirm-email', { token: confirmToken(mail) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toEqual({ email });

    const after = await seen(token);
    expect(after).toMatchObject(ALL);
    expect(after.body).toContain(name);
    // Confirmed, the same address is no change.
    expect(expectFieldErrors(await as(t, token)('PUT', '/user/me', { email }))).toEqual(['email']);
  });

  it('has the address confirmed when the provider, at a later sign-in, says it verified that address', async () => {
    const email = uniqueEmail('victim-google');
    const name = await keptUnder(email);
    const { sub } = await legacyAccount('google', email);

    const unverified = await accessToken('google', sub, email, false);
    expect(await seen(unverified)).toMatchObject(NOTHING);
    // A verified address other than the login email confirms nothing.
    const elsewhere = await accessToken('google', sub, uniqueEmail('other'), true);
    expect(await seen(elsewhere)).toMatchObject(NOTHING);

    const verified = await accessToken('google', sub, email, true);
    const after = await seen(verified);
    expect(after).toMatchObject(ALL);
    expect(after.body).toContain(name);
  });

  it("is taken over by the address's owner signing in with a provider that verified it: the unverified identity and its sessions go", async () => {
    const email = uniqueEmail('victim-takeover');
    const name = await keptUnder(email);
    const { sub: facebookSub, userId } = await legacyAccount('facebook', email);
    const squatter = await accessToken('facebook', facebookSub, email, false);

    const owner = await accessToken('google', newSubject(), email, true);
    const seenByOwner = await seen(owner);
    expect(seenByOwner).toMatchObject(ALL);
    expect(seenByOwner.body).toContain(name);
    // The same account, without the identity that made it and its session.
    const identities = await t.database.db.selectFrom('social_identity').select('provider').where('user_id', '=', userId).execute();
    expect(identities).toEqual([{ provider: 'google' }]);
    expectErrorBody(await as(t, squatter)('GET', '/client-account/export'), 401, 'Unauthorized');
    // The Facebook identity is now an unverified address of someone else's account: refused, as any such link is.
    expect(expectFieldErrors(await signIn('facebook', facebookSub, email, false))).toEqual(['authId']);
  });

  it("erases its own data and leaves what is kept under the address, which is the address owner's", async () => {
    const db = t.database.db;
    const email = uniqueEmail('victim-erase');
    const name = await keptUnder(email);
    const { sub, userId } = await legacyAccount('facebook', email);
    const token = await accessToken('facebook', sub, email, false);
    const erased = await as(t, token)('DELETE', '/client-account', {});
    expect(erased.statusCode, erased.body).toBe(204);

    const orders = await db
      .selectFrom('customer_order')
      .select(['billing_name', 'billing_email'])
      .where('billing_email', '=', email)
      .execute();
    expect(orders).toEqual([{ billing_name: name, billing_email: email }]);
    const requests = await db.selectFrom('back_in_stock_request').select('email').where('email', '=', email).execute();
    expect(requests).toEqual([{ email }]);
    const cards = await db.selectFrom('gift_card').select('recipient_name').where('recipient_email', '=', email).execute();
    expect(cards).toEqual([{ recipient_name: name }]);
    expect(await db.selectFrom('unconfirmed_login_email').select('user_id').where('user_id', '=', userId).execute()).toEqual([]);
  });

  it('cannot subscribe or unsubscribe the address to the newsletter without the double opt-in while it is not confirmed', async () => {
    const db = t.database.db;
    const email = uniqueEmail('victim-news');
    const { sub, userId } = await legacyAccount('facebook', email);
    const token = await accessToken('facebook', sub, email, false);
    const refused = await as(t, token)('PUT', '/client-account', { marketingConsents: { email: true } });
    expect(expectFieldErrors(refused)).toEqual(['marketingConsents.email']);
    const subscribers = () =>
      db.selectFrom('newsletter_subscriber').select(['store_code', 'withdrawn_at']).where('email', '=', email).execute();
    expect(await subscribers()).toEqual([]);

    // The address's owner subscribes (the double opt-in done), and the newsletter flag follows the address.
    const now = Date.now();
    const subscription = { email, store_code: 'WEB', language: 'et', source: 'website', consented_at: now, withdrawn_at: null };
    await db
      .insertInto('newsletter_subscriber')
      .values({ ...subscription, created_at: now, updated_at: now })
      .execute();
    await db.updateTable('app_user').set({ newsletter: true }).where('id', '=', userId).execute();
    const profile = await as(t, token)('GET', '/client-account');
    expect(profile.json().marketingConsents.email).toEqual({ granted: false, givenAt: null, withdrawnAt: null });
    // Not this user's to end: "no" is what the account has already, and the owner's subscription stays.
    const withdrawn = await as(t, token)('PUT', '/client-account', { marketingConsents: { email: false } });
    expect(withdrawn.statusCode, withdrawn.body).toBe(200);
    expect(await subscribers()).toEqual([{ store_code: 'WEB', withdrawn_at: null }]);
  });

  it("does not show the address owner's newsletter flag in the export's account part until the address is confirmed", async () => {
    const db = t.database.db;
    const email = uniqueEmail('victim-news-export');
    const { sub, userId } = await legacyAccount('facebook', email);
    const token = await accessToken('facebook', sub, email, false);
    // The owner's subscription (double opt-in done), which the user row's flag follows.
    const now = Date.now();
    await db
      .insertInto('newsletter_subscriber')
      .values({
        email,
        store_code: 'WEB',
        language: 'et',
        source: 'website',
        consented_at: now,
        withdrawn_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db.updateTable('app_user').set({ newsletter: true }).where('id', '=', userId).execute();
    const exported = async () => {
      const response = await as(t, token)('GET', '/client-account/export');
      expect(response.statusCode, response.body).toBe(200);
      return response.json() as { account: { user: { newsletter: boolean } }; profile: { loginEmailConfirmed: boolean } };
    };
    const before = await exported();
    expect(before.profile.loginEmailConfirmed).toBe(false);
    expect(before.account.user.newsletter).toBe(false);

    // Confirmed through the link mailed to the address, the flag is the user's own and shows.
    expect((await as(t, token)('PUT', '/user/me', { email })).statusCode).toBe(200);
    const confirmed = await as(t, token)('POST', '/user/me/confirm-email', { token: confirmToken(await mailTo(t, email)) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const after = await exported();
    expect(after.profile.loginEmailConfirmed).toBe(true);
    expect(after.account.user.newsletter).toBe(true);
  });
});

describe('back-in-stock mails of an account whose login email is not confirmed', () => {
  it('are neither asked for (409) nor sent to the address, whose owner asked for nothing', async () => {
    const db = t.database.db;
    const email = uniqueEmail('victim-bis');
    const { sub, userId } = await legacyAccount('facebook', email);
    const token = await accessToken('facebook', sub, email, false);
    const soldOut = await createProduct(db, { availability: 'TEMPORARILY_OUT_OF_STOCK' });
    expectErrorBody(await as(t, token)('POST', '/back-in-stock', { productId: soldOut }), 409, 'Conflict');
    expect(await db.selectFrom('back_in_stock_request').select('id').where('email', '=', email).execute()).toEqual([]);

    // A request the account made before requests were refused, and the product back in stock.
    const account = await db.selectFrom('client_account').select('id').where('user_id', '=', userId).executeTakeFirstOrThrow();
    const now = Date.now();
    await db
      .insertInto('back_in_stock_request')
      .values({
        store_code: 'WEB',
        product_id: soldOut,
        email,
        client_account_id: account.id,
        language: 'et',
        audience: 'R',
        created_at: now,
        expires_at: now + 86_400_000,
        notified_at: null,
        confirmed_at: now,
      })
      .execute();
    await db
      .updateTable('product')
      .set({ availability: 'AVAILABLE', web_stock: 10, reserved_quantity: 0 })
      .where('id', '=', soldOut)
      .execute();
    expect(await scanBackInStock(db, Date.now())).toBeGreaterThanOrEqual(1);
    await t.drainJobs();
    expect(mailsTo(t, email)).toEqual([]);
  });
});

/** Asks for a password reset for `email` (in English) and answers the token of the link mailed to it. */
async function resetTokenMailedTo(email: string): Promise<string> {
  const asked = await t.app.inject({
    method: 'POST',
    url: '/auth/reset-password',
    headers: { 'x-app-language': 'en' },
    payload: { email },
  });
  expect(asked.statusCode, asked.body).toBe(200);
  return tokenFromMail(await mailTo(t, email, /Reset your password/), 'passwordResetToken');
}

describe('the address owner proving the mailbox through a link the accounts module mailed to it', () => {
  const NEW_PASSWORD = 'Uus-parool-kuuse-all-77';

  /** Asks for a password reset for `email`, follows the link from the mail and sets NEW_PASSWORD. */
  async function resetPassword(email: string) {
    const token = await resetTokenMailedTo(email);
    const set = await t.app.inject({
      method: 'POST',
      url: '/auth/set-new-password',
      payload: { passwordResetToken: token, password: NEW_PASSWORD, passwordRepeat: NEW_PASSWORD },
    });
    expect(set.statusCode, set.body).toBe(200);
  }

  const identitiesOf = (userId: number) =>
    t.database.db.selectFrom('social_identity').select('provider').where('user_id', '=', userId).execute();

  /** The impersonator's way in is gone: their session ends, and their Facebook identity no longer signs in to the account. */
  async function expectImpersonatorOut(squatter: string, facebookSub: string, email: string, userId: number) {
    expectErrorBody(await as(t, squatter)('GET', '/client-account/export'), 401, 'Unauthorized');
    expect(await identitiesOf(userId)).toEqual([]);
    // Now an unverified address of someone else's account: refused, as any such link is.
    expect(expectFieldErrors(await signIn('facebook', facebookSub, email, false))).toEqual(['authId']);
  }

  it('by a password reset takes the account over: the impersonator is out, and the address is confirmed', async () => {
    const email = uniqueEmail('victim-reset');
    const name = await keptUnder(email);
    const { sub, userId } = await legacyAccount('facebook', email);
    const squatter = await accessToken('facebook', sub, email, false);

    await resetPassword(email);

    await expectImpersonatorOut(squatter, sub, email, userId);
    const owner = await login(t, email, NEW_PASSWORD);
    expect(owner.statusCode, owner.body).toBe(200);
    const seenByOwner = await seen(owner.json().accessToken);
    expect(seenByOwner).toMatchObject(ALL);
    expect(seenByOwner.body).toContain(name);
  });

  it('by a verification link (a business registration naming the address) takes the account over the same way', async () => {
    const email = uniqueEmail('victim-verify');
    const name = await keptUnder(email);
    const { sub, userId } = await legacyAccount('facebook', email);
    const squatter = await accessToken('facebook', sub, email, false);

    const form = {
      companyName: `Firma ${newSubject()} OÜ`,
      registryCode: '16000042',
      address: { street: 'Pikk 1', city: 'Tallinn', postcode: '10123', countryCode: 'EE' },
      contact: { firstName: 'Ülle', lastName: 'Tamm', email, phone: '+3725551234' },
    };
    const registered = await t.app.inject({ method: 'POST', url: '/auth/register-business', headers: { store: 'WEB' }, payload: form });
    expect(registered.statusCode, registered.body).toBe(200);
    const link = tokenFromMail(await mailTo(t, email, /ärikliendi konto/), 'verificationToken');
    const verified = await verify(t, link);
    expect(verified.statusCode, verified.body).toBe(200);

    await expectImpersonatorOut(squatter, sub, email, userId);
    // The session the link opened is the owner's, and stays.
    expect((await as(t, verified.json().accessToken)('GET', '/client-account/export')).statusCode).toBe(200);
    const owner = await login(t, email, GOOD_PASSWORD, 'WEB', 'SIMPLE');
    expect(owner.statusCode, owner.body).toBe(200);
    const seenByOwner = await seen(owner.json().accessToken);
    expect(seenByOwner).toMatchObject(ALL);
    expect(seenByOwner.body).toContain(name);
  });

  it('leaves a user whose address is confirmed their identities and provider sign-in after a password reset', async () => {
    const email = uniqueEmail('confirmed-reset');
    const sub = newSubject();
    const before = await accessToken('google', sub, email, true);
    const user = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    const userId = Number(user.id);

    await resetPassword(email);

    expect(await identitiesOf(userId)).toEqual([{ provider: 'google' }]);
    // The reset ended the sessions, as it does for anyone; the provider still signs in to the same account.
    expectErrorBody(await as(t, before)('GET', '/client-account/export'), 401, 'Unauthorized');
    const again = await accessToken('google', sub, email, true);
    expect((await seen(again)).loginEmailConfirmed).toBe(true);
    const row = await t.database.db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    expect(Number(row.id)).toBe(userId);
    expect((await login(t, email, NEW_PASSWORD)).statusCode).toBe(200);
  });
});

describe('a new social sign-up', () => {
  it('whose provider verified the address sees what is kept under it at once', async () => {
    const email = uniqueEmail('verified');
    const name = await keptUnder(email);
    const token = await accessToken('google', newSubject(), email, true);
    const shown = await seen(token);
    expect(shown).toMatchObject(ALL);
    expect(shown.body).toContain(name);
  });

  it('whose provider did not verify it gets a placeholder that counts as not confirmed', async () => {
    const token = await accessToken('facebook', newSubject(), uniqueEmail('unverified'), false);
    expect(await seen(token)).toMatchObject(NOTHING);
  });
});

describe("a social sign-in racing the address owner's takeover", () => {
  // The impersonator's Facebook sign-in has found its identity when the owner's password reset
  // drops that identity and the user's sessions. On PostgreSQL the two are forced to overlap: the
  // sign-in's look-up answers once the reset is done, or a lock the test holds stops the sign-in
  // until the reset waits too (both take the person's account locks before the user's row).
  // SQLite runs one write transaction at a time; there the sign-in's authId, got before the reset,
  // is used after it.
  const NEW_PASSWORD = 'Uus-parool-kuuse-all-78';

  type Answer = Awaited<ReturnType<typeof t.app.inject>>;

  /**
   * On PostgreSQL: holds `lock` in a transaction, starts the sign-in and waits until it waits on a
   * lock, then starts the reset and waits until it is answered or waits too; then lets go.
   */
  async function overlapped(
    lock: (trx: typeof t.database.db) => Promise<unknown>,
    signIn: () => Promise<Answer>,
    reset: () => Promise<Answer>,
  ) {
    if (engine !== 'postgres') {
      const resetAnswer = await reset();
      return { signedIn: await signIn(), reset: resetAnswer };
    }
    let signedIn: Answer | undefined;
    let resetAnswer: Answer | undefined;
    await t.database.db.transaction().execute(async (trx) => {
      await lock(trx);
      void signIn().then((answer) => (signedIn = answer));
      await until('the sign-in to wait', async () => (await lockWaiters(t.database.db)) >= 1);
      void reset().then((answer) => (resetAnswer = answer));
      await until('the reset to end or wait', async () => resetAnswer !== undefined || (await lockWaiters(t.database.db)) >= 2);
    });
    await until('both answers', () => signedIn !== undefined && resetAnswer !== undefined);
    return { signedIn: signedIn!, reset: resetAnswer! };
  }

  /** An impersonator's account with a reset link mailed to its address, and an authId of the Facebook identity not yet used. */
  async function racing() {
    const email = uniqueEmail('victim-race');
    const { sub, userId } = await legacyAccount('facebook', email);
    const resetToken = await resetTokenMailedTo(email);
    const token = t.facebook.issueToken({ id: sub, email });
    const external = await t.app.inject({ method: 'GET', url: `/auth/external?client=facebook&id=${sub}&token=${token}` });
    expect(external.statusCode, external.body).toBe(200);
    const authId = external.json().authId as string;
    return {
      email,
      userId,
      authId,
      signIn: () => t.app.inject({ method: 'POST', url: '/auth/social-login', payload: { authId, isNativeForm: true } }),
      reset: () =>
        t.app.inject({
          method: 'POST',
          url: '/auth/set-new-password',
          payload: { passwordResetToken: resetToken, password: NEW_PASSWORD, passwordRepeat: NEW_PASSWORD },
        }),
    };
  }

  async function expectOwnerAlone(userId: number, email: string) {
    const db = t.database.db;
    expect(await db.selectFrom('social_identity').select('provider').where('user_id', '=', userId).execute()).toEqual([]);
    expect(await db.selectFrom('access_token').select('token_hash').where('user_id', '=', userId).execute()).toEqual([]);
    const owner = await login(t, email, NEW_PASSWORD);
    expect(owner.statusCode, owner.body).toBe(200);
    expect((await seen(owner.json().accessToken)).loginEmailConfirmed).toBe(true);
  }

  it('that found its identity before the takeover committed opens no session after it (PostgreSQL: the reset runs between its look-up and its locks)', async () => {
    const race = await racing();
    let refused: string[];
    let reset: Answer;
    if (engine === 'postgres') {
      // The sign-in's look-up of the identity answers once the reset has committed; it then takes the
      // person's locks (the reset waited for nothing: the sign-in held none) and reads the identity again.
      const db = afterFirstRead(t.database.db, 'social_identity', async () => (reset = await race.reset()));
      const input = { authId: race.authId, role: undefined, isNativeForm: true, storeCode: 'WEB', language: 'et' as const };
      const signingIn = db
        .transaction()
        .execute((trx) => socialLogin(trx, t.config, { ...input, basket: { guestToken: undefined, language: 'et' } }, Date.now()));
      refused = (
        (await signingIn.then(
          () => ({ fields: [] }),
          (error: unknown) => error,
        )) as { fields: { field: string }[] }
      ).fields.map((error) => error.field);
    } else {
      reset = await race.reset();
      refused = expectFieldErrors(await race.signIn());
    }
    expect(reset!.statusCode, reset!.body).toBe(200);
    // The identity is gone: the sign-in is that of a Facebook address of someone else's account.
    expect(refused).toEqual(['authId']);
    await expectOwnerAlone(race.userId, race.email);
  });

  it("that holds the user when the takeover comes has its session ended by it (PostgreSQL: the sign-in's authId held until the reset waits)", async () => {
    const race = await racing();
    const { signedIn, reset } = await overlapped(
      (trx) => sql`select id_hash from auth_record where id_hash = ${hashToken(race.authId)} for update`.execute(trx),
      race.signIn,
      race.reset,
    );
    expect(reset.statusCode, reset.body).toBe(200);
    if (engine === 'postgres') {
      // Its session came first, and the takeover ended it.
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      expectErrorBody(await as(t, signedIn.json().accessToken)('GET', '/client-account/export'), 401, 'Unauthorized');
    } else expect(expectFieldErrors(signedIn)).toEqual(['authId']);
    await expectOwnerAlone(race.userId, race.email);
  });
});

describe('an identity linked to an account whose login email is not confirmed', () => {
  // Linking is a sign-in at the provider by the logged-in user: when the provider vouches for the
  // account's login email itself, that user has shown the mailbox is theirs, as a later sign-in of
  // the identity would (GET /auth/external with a bearer, or the web flow and its confirm-link).

  const identitiesOf = async (userId: number) =>
    (
      await t.database.db
        .selectFrom('social_identity')
        .select(['provider', 'email', 'email_verified'])
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute()
    ).map((row) => ({ provider: row.provider, email: row.email, verified: Boolean(row.email_verified) }));

  /** Links a Google identity to the account behind `bearer` in the app flow; the provider says `claims` of it. */
  async function linkInApp(bearer: string, claims: { email: string; email_verified: boolean }) {
    const sub = newSubject();
    const token = await t.google.idToken({ sub, aud: IOS_APP, jti: newJti(), ...claims });
    const linked = await t.app.inject({
      method: 'GET',
      url: `/auth/external?client=google&id=${sub}&token=${token}`,
      headers: { authorization: `Bearer ${bearer}` },
    });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json()).toEqual({ linked: 'google' });
  }

  it("confirms the address when the web flow links a provider that verified it, and the owner's password reset then takes nothing over", async () => {
    const email = uniqueEmail('linker-web');
    const name = await keptUnder(email);
    const { sub: facebookSub, userId } = await legacyAccount('facebook', email);
    const bearer = await accessToken('facebook', facebookSub, email, false);

    const googleSub = newSubject();
    t.google.addAccount({ sub: googleSub, email, email_verified: true });
    const landing = await webFlow(t, 'google', { sub: googleSub }, { headers: { authorization: `Bearer ${bearer}` } });
    expect(landing.searchParams.get('link')).toBe('google');
    // Landing is not linking: only the confirmation links, and confirms.
    expect(await seen(bearer)).toMatchObject(NOTHING);
    const confirmed = await as(t, bearer)('POST', '/auth/external/confirm-link', { authId: landing.searchParams.get('authId') });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect(confirmed.json()).toEqual({ linked: 'google' });

    const after = await seen(bearer);
    expect(after).toMatchObject(ALL);
    expect(after.body).toContain(name);
    expect(await identitiesOf(userId)).toEqual([
      { provider: 'facebook', email, verified: false },
      { provider: 'google', email, verified: true },
    ]);

    // The address is the account's, so a reset from its mailbox is a reset, not a takeover: both
    // identities stay and sign in to the account.
    const reset = await t.app.inject({
      method: 'POST',
      url: '/auth/set-new-password',
      payload: {
        passwordResetToken: await resetTokenMailedTo(email),
        password: 'Uus-parool-kuuse-all-79',
        passwordRepeat: 'Uus-parool-kuuse-all-79',
      },
    });
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await identitiesOf(userId)).map((identity) => identity.provider)).toEqual(['facebook', 'google']);
    expect((await seen(await accessToken('facebook', facebookSub, email, false))).loginEmailConfirmed).toBe(true);
  });

  it('confirms the address in the app flow only when the provider verified that very address', async () => {
    const email = uniqueEmail('linker-app');
    const { sub, userId } = await legacyAccount('facebook', email);
    const bearer = await accessToken('facebook', sub, email, false);

    await linkInApp(bearer, { email: uniqueEmail('elsewhere'), email_verified: true });
    await linkInApp(bearer, { email, email_verified: false });
    expect((await seen(bearer)).loginEmailConfirmed).toBe(false);

    // Spaces and case aside, it is the login email (as a provider may send it).
    await linkInApp(bearer, { email: `  ${email.toUpperCase()} `, email_verified: true });
    expect((await seen(bearer)).loginEmailConfirmed).toBe(true);
    expect((await identitiesOf(userId)).map((identity) => identity.verified)).toEqual([false, true, false, true]);
    expect((await identitiesOf(userId)).at(-1)!.email).toBe(email);
  });
});

describe("a provider's email with surrounding spaces", () => {
  it('is kept and shown as the address it is, trimmed and lower-cased (Google and Facebook)', async () => {
    const googleEmail = uniqueEmail('spaced-google');
    const google = await accessToken('google', newSubject(), ` ${googleEmail.toUpperCase()}  `, true);
    const facebookEmail = uniqueEmail('spaced-facebook');
    const facebook = await accessToken('facebook', newSubject(), `  ${facebookEmail} `, false);
    const identities = async (token: string) => {
      const exported = await as(t, token)('GET', '/client-account/export');
      expect(exported.statusCode, exported.body).toBe(200);
      return (exported.json().socialIdentities as Array<{ provider: string; email: string }>).map(({ provider, email }) => ({
        provider,
        email,
      }));
    };
    expect(await identities(google)).toEqual([{ provider: 'google', email: googleEmail }]);
    expect(await identities(facebook)).toEqual([{ provider: 'facebook', email: facebookEmail }]);
  });
});

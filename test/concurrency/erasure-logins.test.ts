import type { Transaction } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { logIn } from '../../src/modules/accounts/accounts.use-cases.js';
import { openSession } from '../../src/modules/accounts/session.service.js';
import { eraseSubject, loadSubject } from '../../src/modules/gdpr/gdpr.service.js';
import { personalDataParts } from '../../src/modules/gdpr/personal-data-parts.js';
import { createAuthRecord, socialLogin } from '../../src/modules/social/social.service.js';
import { hashPassword } from '../../src/infra/passwords.js';
import { GOOD_PASSWORD } from '../helpers/accounts.js';
import { add } from '../basket/helpers.js';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { afterFirstRead, whileTransactionOpen } from '../helpers/overlapping-writes.js';
import { lockAccountsForErasure } from '../../src/modules/client-account-lock/index.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

// A login in the other store makes the retail customer's account there (openSession), and a social
// sign-in that finds its person by a provider-verified email does the same. Either one and the
// erasure at once end as one of them first: the login first, its account and token are erased with
// the rest; the erasure first, the login finds no such person (the wrong-credentials answer of a login
// sent after it; a social sign-in makes a new person of the email, as one sent after it does). On
// PostgreSQL they run at once; SQLite runs them one after the other.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

const db = () => t.database.db;
let passwordHash: string;
beforeAll(async () => {
  passwordHash = await hashPassword(GOOD_PASSWORD);
});

/** A verified retail customer of WEB with a password, and no account in WEB2. */
async function retailCustomer(): Promise<TestCustomer & { userId: number; email: string }> {
  const client = await createCustomer(db());
  const row = await db()
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select(['app_user.id', 'app_user.email'])
    .where('client_account.id', '=', client.clientAccountId)
    .executeTakeFirstOrThrow();
  await db().updateTable('app_user').set({ password_hash: passwordHash }).where('id', '=', row.id).execute();
  return { ...client, userId: Number(row.id), email: row.email };
}

const erase = async (trx: Transaction<Database>, userId: number) =>
  eraseSubject(trx, personalDataParts, (await loadSubject(trx, userId))!, Date.now());

const accountsOfUser = (userId: number) =>
  db().selectFrom('client_account').select(['store_code', 'status']).where('user_id', '=', userId).orderBy('id').execute();

const tokensOfUser = (userId: number) => db().selectFrom('access_token').select('token_hash').where('user_id', '=', userId).execute();

const userOfEmail = (email: string) => db().selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirst();

const logInToWeb2 = (email: string) =>
  t.app.inject({
    method: 'POST',
    url: '/auth/login',
    headers: { store: 'WEB2' },
    payload: { email, password: GOOD_PASSWORD, web_store_nav_code: 'WEB2' },
  });

const noGuestBasket = { guestToken: undefined, language: 'et' as const };

/** What POST /auth/login in WEB2 opens for the user once the credentials were checked. */
const web2Session = (userId: number) => ({
  userId,
  storeCode: 'WEB2',
  role: undefined,
  how: { method: 'password' },
  storeField: 'web_store_nav_code',
  basket: noGuestBasket,
});

describe('the erasure and a password login in the other store at once', () => {
  it('a login while the erasure is open waits for it, makes no account and answers as to a wrong password', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await retailCustomer();
      let login!: Awaited<ReturnType<typeof logInToWeb2>>;
      await whileTransactionOpen(
        db(),
        (trx) => erase(trx, client.userId),
        async () => (login = await logInToWeb2(client.email)),
      );
      expect(expectFieldErrors(login)).toEqual(['password']);
      expect(await accountsOfUser(client.userId)).toEqual([{ store_code: 'WEB', status: 'ERASED' }]);
      expect(await tokensOfUser(client.userId)).toEqual([]);
    }
  });

  it('a login in flight when the erasure starts is waited for, and its account and token erased with the rest', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await retailCustomer();
      let erased!: Awaited<ReturnType<ReturnType<typeof as>>>;
      await whileTransactionOpen(
        db(),
        (trx) => openSession(trx, t.config, web2Session(client.userId), Date.now()),
        async () => (erased = await as(t, client.token)('DELETE', '/client-account', { password: GOOD_PASSWORD })),
      );
      expect(erased.statusCode, erased.body).toBe(204);
      expect(await accountsOfUser(client.userId)).toEqual([
        { store_code: 'WEB', status: 'ERASED' },
        { store_code: 'WEB2', status: 'ERASED' },
      ]);
      expect(await tokensOfUser(client.userId)).toEqual([]);
    }
  });
});

// A login where the account exists makes nothing but its token and, with a guest's basket-token, the
// client's basket with the guest's lines: the client's data, written under the account's lock as
// every writer of it is (openSession), so they do not outlive an erasure that ran at the same time.
describe('the erasure and a login where the account exists, with a guest basket, at once', () => {
  let product: number;
  beforeAll(async () => {
    product = await createProduct(db(), { price: 10 });
    await setStock(db(), product, await createShop(db()), 1000);
  });
  const guestBasket = async () => (await add(t, { store: 'WEB' }, product, 2)).basketToken!;
  const basketsOfUser = (userId: number) =>
    db()
      .selectFrom('basket')
      .innerJoin('client_account', 'client_account.id', 'basket.client_account_id')
      .select('basket.id')
      .where('client_account.user_id', '=', userId)
      .execute();
  const logInToWeb = (email: string, basketToken: string) =>
    t.app.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { store: 'WEB', 'basket-token': basketToken },
      payload: { email, password: GOOD_PASSWORD, web_store_nav_code: 'WEB' },
    });

  it('a login while the erasure is open waits for it and answers as to a wrong password, leaving no token or basket', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await retailCustomer();
      const basketToken = await guestBasket();
      let login!: Awaited<ReturnType<typeof logInToWeb>>;
      await whileTransactionOpen(
        db(),
        (trx) => erase(trx, client.userId),
        async () => (login = await logInToWeb(client.email, basketToken)),
      );
      expect(expectFieldErrors(login)).toEqual(['password']);
      expect(await tokensOfUser(client.userId)).toEqual([]);
      expect(await basketsOfUser(client.userId)).toEqual([]);
    }
  });

  it('a login in flight when the erasure starts is waited for, and its token and basket erased with the rest', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await retailCustomer();
      const basketToken = await guestBasket();
      const session = { ...web2Session(client.userId), storeCode: 'WEB', basket: { guestToken: basketToken, language: 'et' as const } };
      let erased!: Awaited<ReturnType<ReturnType<typeof as>>>;
      await whileTransactionOpen(
        db(),
        (trx) => openSession(trx, t.config, session, Date.now()),
        async () => (erased = await as(t, client.token)('DELETE', '/client-account', { password: GOOD_PASSWORD })),
      );
      expect(erased.statusCode, erased.body).toBe(204);
      expect(await tokensOfUser(client.userId)).toEqual([]);
      expect(await basketsOfUser(client.userId)).toEqual([]);
    }
  });

  it('a switch to the other store while the erasure is open waits for it and is a 401, making no account there', async () => {
    const client = await retailCustomer();
    let switched!: Awaited<ReturnType<ReturnType<typeof as>>>;
    await whileTransactionOpen(
      db(),
      (trx) => erase(trx, client.userId),
      async () => (switched = await as(t, client.token)('POST', '/auth/switch-web-store', { webStoreNavCode: 'WEB2' })),
    );
    expectErrorBody(switched, 401, 'Unauthorized');
    expect(await accountsOfUser(client.userId)).toEqual([{ store_code: 'WEB', status: 'ERASED' }]);
    expect(await tokensOfUser(client.userId)).toEqual([]);
  });
});

describe('a password login whose credentials were checked just before the erasure committed', () => {
  it.each(['WEB', 'WEB2'])('is answered as a wrong password in %s, and opens no session', async (store) => {
    const client = await retailCustomer();
    // The login's read of the user hands back its rows (with the password) once the erasure has committed.
    const erasing = afterFirstRead(db(), 'app_user', () =>
      db()
        .transaction()
        .execute((trx) => erase(trx, client.userId)),
    );
    const form = { email: client.email, password: GOOD_PASSWORD, web_store_nav_code: store };
    const login = logIn(erasing, t.config, { form, address: '192.0.2.1', basket: noGuestBasket }, Date.now());
    await expect(login).rejects.toMatchObject({ fields: [{ field: 'password', messageKey: 'auth.invalidCredentials' }] });
    expect(await accountsOfUser(client.userId)).toEqual([{ store_code: 'WEB', status: 'ERASED' }]);
    expect(await tokensOfUser(client.userId)).toEqual([]);
  });
});

/** An authId for a Google sign-in in the store whose provider verified the email. */
const googleAuthId = (email: string, store = 'WEB2') =>
  createAuthRecord(
    db(),
    { provider: 'google', subject: `sub-${email}`, email, emailVerified: true, firstName: 'Mari', lastName: 'Maasikas' },
    store,
    'et',
    Date.now(),
  );

const signIn = (authId: string, store = 'WEB2') =>
  t.app.inject({ method: 'POST', url: '/auth/social-login', headers: { store }, payload: { authId, isNativeForm: false } });

const identitiesOfUser = (userId: number) => db().selectFrom('social_identity').select('subject').where('user_id', '=', userId).execute();

describe('the erasure and a social sign-in of the email in the other store at once', () => {
  it('a sign-in while the erasure is open waits for it and makes a new person of the email', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await retailCustomer();
      const authId = await googleAuthId(client.email);
      let signedIn!: Awaited<ReturnType<typeof signIn>>;
      await whileTransactionOpen(
        db(),
        (trx) => erase(trx, client.userId),
        async () => (signedIn = await signIn(authId)),
      );
      expect(signedIn.statusCode, signedIn.body).toBe(200);
      expect(await accountsOfUser(client.userId)).toEqual([{ store_code: 'WEB', status: 'ERASED' }]);
      expect(await tokensOfUser(client.userId)).toEqual([]);
      expect(await identitiesOfUser(client.userId)).toEqual([]);
      const person = await userOfEmail(client.email);
      expect(Number(person!.id)).not.toBe(client.userId);
      expect(await accountsOfUser(Number(person!.id))).toEqual([{ store_code: 'WEB2', status: 'ACTIVE' }]);
    }
  });

  it('a sign-in in flight when the erasure starts is waited for, and its account, token and identity erased with the rest', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await retailCustomer();
      const authId = await googleAuthId(client.email);
      let erased!: Awaited<ReturnType<ReturnType<typeof as>>>;
      await whileTransactionOpen(
        db(),
        (trx) =>
          socialLogin(
            trx,
            t.config,
            { authId, role: undefined, isNativeForm: false, storeCode: 'WEB2', language: 'et', basket: noGuestBasket },
            Date.now(),
          ),
        async () => (erased = await as(t, client.token)('DELETE', '/client-account', { password: GOOD_PASSWORD })),
      );
      expect(erased.statusCode, erased.body).toBe(204);
      expect(await accountsOfUser(client.userId)).toEqual([
        { store_code: 'WEB', status: 'ERASED' },
        { store_code: 'WEB2', status: 'ERASED' },
      ]);
      expect(await tokensOfUser(client.userId)).toEqual([]);
      expect(await identitiesOfUser(client.userId)).toEqual([]);
    }
  });

  it('a sign-in of a linked identity that meets the erasure holding the person waits for it and finds it erased, in no deadlock', async () => {
    const client = await retailCustomer();
    const linked = await signIn(await googleAuthId(client.email, 'WEB'), 'WEB');
    expect(linked.statusCode, linked.body).toBe(200);
    const authId = await googleAuthId(client.email);
    let signingIn!: ReturnType<typeof signIn>;
    await db()
      .transaction()
      .execute(async (trx) => {
        // The erasure's first locks; the sign-in is sent while it holds them, and it then writes the user's row.
        await lockAccountsForErasure(trx, client.userId);
        signingIn = signIn(authId);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await erase(trx, client.userId);
      });
    // The erasure deleted the identity's pending sign-ins: as for one sent after it, the authId is unknown.
    expectErrorBody(await signingIn, 400, 'Bad Request');
    expect(await accountsOfUser(client.userId)).toEqual([{ store_code: 'WEB', status: 'ERASED' }]);
    expect(await tokensOfUser(client.userId)).toEqual([]);
    expect(await userOfEmail(client.email)).toBeUndefined();
  });
});

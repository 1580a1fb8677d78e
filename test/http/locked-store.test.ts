import { Type } from '@sinclair/typebox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { fixedClock } from '../../src/infra/clock.js';
import { changeStore } from '../../src/modules/store/index.js';
import { createAccountsTestApp, me, registerVerified, uniqueEmail, type AccountsTestApp } from '../helpers/accounts.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, migratedScratchDatabase } from '../helpers/test-app.js';

let t: AccountsTestApp;
beforeAll(async () => {
  t = await createAccountsTestApp({
    // A store-scoped write, so the test can show a locked store processes nothing.
    beforeReady: (app) => {
      app.post(
        '/test/country',
        {
          config: { storeScoped: true },
          schema: { body: Type.Object({ code: Type.String({ minLength: 2, maxLength: 2 }) }) },
        },
        async (request) => {
          const { code } = request.body as { code: string };
          await t.database.db.insertInto('country').values({ code, position: 999 }).execute();
          return { created: code };
        },
      );
    },
  });
});
afterAll(() => t.close());
afterEach(async () => {
  await changeStore(t.database.db, 'WEB', { isLocked: false, lockedUntil: null }, Date.now());
});

const countryCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom('country')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('a locked store', () => {
  it('answers 423 in the error shape and writes nothing', async () => {
    const before = await countryCount();
    await changeStore(t.database.db, 'WEB', { isLocked: true }, Date.now());
    const response = await t.app.inject({ method: 'POST', url: '/test/country', payload: { code: 'XA' } });
    expectErrorBody(response, 423, 'Locked');
    expect(response.headers['retry-after']).toBeUndefined();
    expect(await countryCount()).toBe(before);
  });

  it('still writes when unlocked (the write above is real)', async () => {
    const before = await countryCount();
    const response = await t.app.inject({ method: 'POST', url: '/test/country', payload: { code: 'XB' } });
    expect(response.statusCode).toBe(200);
    expect(await countryCount()).toBe(before + 1);
  });

  it('says when to retry when the end of the lock is known', async () => {
    await changeStore(t.database.db, 'WEB', { isLocked: true, lockedUntil: Date.now() + 600_000 }, Date.now());
    const response = await t.app.inject({ method: 'GET', url: '/app/config' });
    expectErrorBody(response, 423, 'Locked');
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(590);
    expect(response.headers['action-time']).toBeDefined();
    expect(response.headers.is_active).toBe('1');
  });

  it('only locks that store', async () => {
    await changeStore(t.database.db, 'WEB', { isLocked: true }, Date.now());
    const other = await t.app.inject({ method: 'GET', url: '/app/config', headers: { store: 'WEB2' } });
    expect(other.statusCode).toBe(200);
  });

  it('still answers OPTIONS and the health probe', async () => {
    await changeStore(t.database.db, 'WEB', { isLocked: true }, Date.now());
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/app/config',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    const health = await t.app.inject({ method: 'GET', url: '/site/health' });
    expect(health.statusCode).toBe(200);
  });
});

// A customer with a token must be stopped like anyone else: the lock is tested on real routes
// with a bearer token, a read and writes, each next to the same call on the open store.
describe('a locked store, for a customer with a bearer token', () => {
  const bearer = (accessToken: string) => ({ authorization: `Bearer ${accessToken}` });
  const tokensOf = async (email: string) =>
    Number(
      (
        await t.database.db
          .selectFrom('access_token')
          .innerJoin('app_user', 'app_user.id', 'access_token.user_id')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('app_user.email', '=', email)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('answers 423 to who-am-I and to a catalogue read, which the open store answers', async () => {
    const accessToken = await registerVerified(t, uniqueEmail('locked'));
    expect((await me(t, accessToken)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/product', headers: bearer(accessToken) })).statusCode).toBe(200);

    await changeStore(t.database.db, 'WEB', { isLocked: true }, Date.now());
    expectErrorBody(await me(t, accessToken), 423, 'Locked');
    expectErrorBody(await t.app.inject({ method: 'GET', url: '/product', headers: bearer(accessToken) }), 423, 'Locked');
  });

  it('refuses a store switch with 423 and writes nothing; the open store then switches', async () => {
    const email = uniqueEmail('locked');
    const accessToken = await registerVerified(t, email);
    const tokens = await tokensOf(email);
    const switchStore = () =>
      t.app.inject({ method: 'POST', url: '/auth/switch-web-store', headers: bearer(accessToken), payload: { webStoreNavCode: 'WEB2' } });

    await changeStore(t.database.db, 'WEB', { isLocked: true }, Date.now());
    expectErrorBody(await switchStore(), 423, 'Locked');
    expect(await tokensOf(email)).toBe(tokens);

    await changeStore(t.database.db, 'WEB', { isLocked: false }, Date.now());
    expect((await switchStore()).statusCode).toBe(200);
    expect(await tokensOf(email)).toBe(tokens + 1);
  });

  it('refuses a logout with 423 and keeps the token; the open store then revokes it', async () => {
    const accessToken = await registerVerified(t, uniqueEmail('locked'));
    const logout = () => t.app.inject({ method: 'POST', url: '/auth/logout', headers: bearer(accessToken) });

    await changeStore(t.database.db, 'WEB', { isLocked: true }, Date.now());
    expectErrorBody(await logout(), 423, 'Locked');

    await changeStore(t.database.db, 'WEB', { isLocked: false }, Date.now());
    expect((await me(t, accessToken)).statusCode).toBe(200);
    expect((await logout()).statusCode).toBe(200);
    expect((await me(t, accessToken)).statusCode).toBe(401);
  });
});

describe('the store settings cache', () => {
  it('sees a lock made elsewhere within its TTL', async () => {
    const cached = await createTestApp({ env: { STORE_CACHE_TTL_MS: '150' } });
    try {
      expect((await cached.app.inject({ method: 'GET', url: '/app/config' })).statusCode).toBe(200);
      await changeStore(cached.database.db, 'WEB', { isLocked: true }, Date.now());
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect((await cached.app.inject({ method: 'GET', url: '/app/config' })).statusCode).toBe(423);
    } finally {
      await cached.close();
    }
  });
});

describe('the action time', () => {
  it('comes from the clock the app is given, and Retry-After counts from it', async () => {
    const start = Date.UTC(2030, 0, 1, 12, 0, 0);
    const clock = fixedClock(start);
    const scratch = await migratedScratchDatabase();
    const database = createDatabase(scratch.url);
    try {
      await migrateToLatest(database);
      const app = await buildApp({ ...t.config, databaseUrl: scratch.url }, { database, clock });
      try {
        const open = await app.inject({ method: 'GET', url: '/app/config' });
        expect(open.statusCode).toBe(200);
        expect(open.headers['action-time']).toBe(String(start / 1000));

        await changeStore(database.db, 'WEB', { isLocked: true, lockedUntil: start + 600_000 }, start);
        const locked = await app.inject({ method: 'GET', url: '/app/config' });
        expectErrorBody(locked, 423, 'Locked');
        expect(locked.headers['retry-after']).toBe('600');
        clock.advance(200_000);
        const later = await app.inject({ method: 'GET', url: '/app/config' });
        expect(later.headers['retry-after']).toBe('400');
        expect(later.headers['action-time']).toBe(String((start + 200_000) / 1000));
      } finally {
        await app.close();
      }
    } finally {
      await database.close();
      await scratch.drop();
    }
  });
});

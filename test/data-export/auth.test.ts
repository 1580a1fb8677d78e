import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  rotateExportUser,
  removeExportUser,
  setExportUserCidrs,
  setExportUserDisabled,
} from '../../src/modules/data-export/export-user.service.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorBody } from '../helpers/http.js';
import { basic, exportUser } from './fixtures.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

const get = (t: TestApp, headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
  t.app.inject({ method: 'GET', url: '/export/shop', headers: { 'x-app-language': 'en', ...headers }, remoteAddress });

function expectUnauthorized(response: Awaited<ReturnType<typeof get>>) {
  expectErrorBody(response, 401, 'Unauthorized');
  expect(response.headers['www-authenticate']).toBe('Basic realm="data-export", charset="UTF-8"');
}

describe('HTTP Basic as an export user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('missing, malformed or wrong credentials are a 401 with WWW-Authenticate', async () => {
    const user = await exportUser(t.database.db);
    expectUnauthorized(await get(t, {}));
    expectUnauthorized(await get(t, { authorization: 'Bearer abc' }));
    expectUnauthorized(await get(t, { authorization: 'Basic !!!' }));
    expectUnauthorized(await get(t, { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }));
    expectUnauthorized(await get(t, { authorization: basic(user.name, `${user.password}x`) }));
    expectUnauthorized(await get(t, { authorization: basic('nobody', user.password) }));
    expectUnauthorized(await get(t, { authorization: basic('x'.repeat(500), user.password) }));
    // Names no export user can have (a NUL character failed the lookup on PostgreSQL: a 500).
    expectUnauthorized(await get(t, { authorization: basic(`${user.name}\u0000`, user.password) }));
    expectUnauthorized(await get(t, { authorization: basic('Jüri 📚', user.password) }));
    const ok = await get(t, { authorization: user.authorization });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['cache-control']).toBe('no-store');
  });

  it('a disabled user is a 403 until enabled again', async () => {
    const user = await exportUser(t.database.db);
    expect((await get(t, { authorization: user.authorization })).statusCode).toBe(200);
    await setExportUserDisabled(t.database.db, user.name, true, Date.now());
    const body = expectErrorBody(await get(t, { authorization: user.authorization }), 403, 'Forbidden');
    expect(body.message).toMatch(/disabled/);
    // A wrong password of a disabled user is still a 401: nothing is told before the password is right.
    expectUnauthorized(await get(t, { authorization: basic(user.name, 'wrong') }));
    await setExportUserDisabled(t.database.db, user.name, false, Date.now());
    expect((await get(t, { authorization: user.authorization })).statusCode).toBe(200);
  });

  it('rotating or removing takes effect at once, also for remembered credentials', async () => {
    const user = await exportUser(t.database.db);
    expect((await get(t, { authorization: user.authorization })).statusCode).toBe(200);
    const { password } = await rotateExportUser(t.database.db, user.name, Date.now());
    expectUnauthorized(await get(t, { authorization: user.authorization }));
    expect((await get(t, { authorization: basic(user.name, password) })).statusCode).toBe(200);
    await removeExportUser(t.database.db, user.name);
    expectUnauthorized(await get(t, { authorization: basic(user.name, password) }));
  });

  it('an allowlist admits its networks only (IPv4, IPv6, IPv4-mapped IPv6)', async () => {
    const user = await exportUser(t.database.db, ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
    const auth = { authorization: user.authorization };
    expect((await get(t, auth, '10.20.30.40')).statusCode).toBe(200);
    expect((await get(t, auth, '192.0.2.7')).statusCode).toBe(200);
    expect((await get(t, auth, '2001:db8:1::5')).statusCode).toBe(200);
    expect((await get(t, auth, '::ffff:10.1.1.1')).statusCode).toBe(200);
    const body = expectErrorBody(await get(t, auth, '192.0.2.8'), 403, 'Forbidden');
    expect(body.message).toContain('192.0.2.8');
    expectErrorBody(await get(t, auth, '2001:db9::1'), 403, 'Forbidden');
    expectErrorBody(await get(t, auth, '127.0.0.1'), 403, 'Forbidden');
    await setExportUserCidrs(t.database.db, user.name, [], Date.now());
    expect((await get(t, auth, '192.0.2.8')).statusCode).toBe(200);
  });

  it('outside its allowlist the answer is the same whatever the password: nobody there learns whether it is right', async () => {
    const user = await exportUser(t.database.db, ['10.0.0.0/8']);
    const right = await get(t, { authorization: user.authorization }, '192.0.2.8');
    const wrong = await get(t, { authorization: basic(user.name, `${user.password}x`) }, '192.0.2.8');
    expectErrorBody(right, 403, 'Forbidden');
    expect({ status: wrong.statusCode, body: wrong.json(), challenge: wrong.headers['www-authenticate'] }).toEqual({
      status: right.statusCode,
      body: right.json(),
      challenge: right.headers['www-authenticate'],
    });
    // Inside it a wrong password is still the 401.
    expectUnauthorized(await get(t, { authorization: basic(user.name, `${user.password}x`) }, '10.1.2.3'));
    expect((await get(t, { authorization: user.authorization }, '10.1.2.3')).statusCode).toBe(200);
  });

  it('the API document and OPTIONS need no credentials', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/export/openapi.json' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'OPTIONS', url: '/export/shop' })).statusCode).toBe(204);
  });

  it('unknown paths under the prefix are a 404 in the error shape', async () => {
    const user = await exportUser(t.database.db);
    expectErrorBody(
      await t.app.inject({ method: 'GET', url: '/export/orders', headers: { authorization: user.authorization } }),
      404,
      'Not Found',
    );
  });
});

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { DATA_EXPORT_RATE_LIMIT: '3/1h', DATA_EXPORT_AUTH_FAILURES_PER_IP: '2/1h' } });
  });
  afterAll(() => t.close());

  it('each export user has a request limit: 429 with Retry-After past it', async () => {
    const user = await exportUser(t.database.db);
    const other = await exportUser(t.database.db);
    for (let i = 0; i < 3; i += 1) expect((await get(t, { authorization: user.authorization }, '10.0.0.1')).statusCode).toBe(200);
    const limited = await get(t, { authorization: user.authorization }, '10.0.0.1');
    expectErrorBody(limited, 429, 'Too Many Requests');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // The limit is the user's, not the address's.
    expect((await get(t, { authorization: other.authorization }, '10.0.0.1')).statusCode).toBe(200);
  });

  it('requests sent at once past the limit are answered no more than it allows', async () => {
    const user = await exportUser(t.database.db);
    // Each request looks at its user's count with the credentials (a 429 there for a user already past
    // it) and is counted, in one atomic upsert, only once its cut is decided, before it reads: sent
    // together, all of them find the count below the limit, and the count alone decides which read.
    // From addresses of their own: a password not yet remembered is counted as a failed check of its
    // address until it is found right, and that limit (2) would refuse some first.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => get(t, { authorization: user.authorization }, `10.0.1.${i + 1}`)),
    );
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(3);
    const limited = answers.filter((answer) => answer.statusCode !== 200);
    expect(limited).toHaveLength(7);
    for (const answer of limited) {
      expectErrorBody(answer, 429, 'Too Many Requests');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The same past the limit, one at a time.
    expectErrorBody(await get(t, { authorization: user.authorization }, '10.0.0.2'), 429, 'Too Many Requests');
  });

  it('a request refused for its query counts against the limit as any other', async () => {
    const user = await exportUser(t.database.db);
    const wrong = (query: string) =>
      t.app.inject({ method: 'GET', url: `/export/sales-history?${query}`, headers: { authorization: user.authorization } });
    // Refused by the query's schema, and by the window's check in the route.
    expectErrorBody(await wrong('per-page=many'), 400, 'Bad Request');
    expectErrorBody(await wrong('createdFrom=2026-02-30%2000:00:00'), 400, 'Bad Request');
    expect((await get(t, { authorization: user.authorization })).statusCode).toBe(200);
    expectErrorBody(await get(t, { authorization: user.authorization }), 429, 'Too Many Requests');
  });

  it('failed checks from one address are limited; remembered credentials still pass', async () => {
    const user = await exportUser(t.database.db);
    const fresh = await exportUser(t.database.db);
    const ip = '10.9.9.9';
    expect((await get(t, { authorization: user.authorization }, ip)).statusCode).toBe(200);
    expectUnauthorized(await get(t, { authorization: basic(user.name, 'guess-1') }, ip));
    expectUnauthorized(await get(t, { authorization: basic(user.name, 'guess-2') }, ip));
    expectErrorBody(await get(t, { authorization: basic(user.name, 'guess-3') }, ip), 429, 'Too Many Requests');
    // Past the limit the password is not even checked, right or wrong...
    expectErrorBody(await get(t, { authorization: fresh.authorization }, ip), 429, 'Too Many Requests');
    // ...unless it was verified before (the crawl in progress is not cut off by someone guessing).
    expect((await get(t, { authorization: user.authorization }, ip)).statusCode).toBe(200);
    // Another address is not affected.
    expect((await get(t, { authorization: fresh.authorization }, '10.9.9.10')).statusCode).toBe(200);
  });

  it('refusals outside an allowlist are counted as failed checks: an address there cannot send them without end', async () => {
    const user = await exportUser(t.database.db, ['10.0.0.0/8']);
    const ip = '192.0.2.44';
    expectErrorBody(await get(t, { authorization: user.authorization }, ip), 403, 'Forbidden');
    expectErrorBody(await get(t, { authorization: basic(user.name, 'guess') }, ip), 403, 'Forbidden');
    expectErrorBody(await get(t, { authorization: user.authorization }, ip), 429, 'Too Many Requests');
    // The user's own network is not affected.
    expect((await get(t, { authorization: user.authorization }, '10.3.3.3')).statusCode).toBe(200);
  });

  it('an IPv6 client is counted by its /64: a new address from it for every guess is the same client', async () => {
    const user = await exportUser(t.database.db);
    expectUnauthorized(await get(t, { authorization: basic(user.name, 'guess-1') }, '2001:db8:5:6::1'));
    expectUnauthorized(await get(t, { authorization: basic(user.name, 'guess-2') }, '2001:db8:5:6:aaaa::2'));
    expectErrorBody(await get(t, { authorization: user.authorization }, '2001:db8:5:6:bbbb:cccc:dddd:3'), 429, 'Too Many Requests');
    expect((await get(t, { authorization: user.authorization }, '2001:db8:5:7::1')).statusCode).toBe(200);
  });

  it('guesses sent at once from one address get no more password checks than the limit, the right one among them too', async () => {
    const user = await exportUser(t.database.db);
    const ip = '10.9.8.7';
    // Each check takes the argon2 time: sent together, every guess looked at the count before any
    // was counted, so the limit of 2 let all 12 be checked and the right password, sent last, in.
    const guesses = [...Array.from({ length: 11 }, (_, i) => basic(user.name, `parallel-guess-${i}`)), user.authorization];
    const answers = await Promise.all(guesses.map((authorization) => get(t, { authorization }, ip)));
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    expect(statuses.filter((status) => status !== 429).every((status) => status === 401 || status === 200)).toBe(true);
    // Another address is not affected.
    expect((await get(t, { authorization: user.authorization }, '10.9.8.8')).statusCode).toBe(200);
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { GOOD_PASSWORD, tokenFromMail, uniqueEmail } from '../helpers/accounts.js';
import { call, createDeployment, sentTo, describeOnPostgres, type Deployment, type RunningProcess } from './processes.js';
import { HOUR, MINUTE, keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow(24 * HOUR, 2 * MINUTE);

// Two API processes (WORKER=off) and a worker of the compiled build on one PostgreSQL database, as
// docs/deployment.md lays them out: a client that alternates between the APIs meets the limits
// counted in the database at the same count, a double submit sent to both gives one result, and
// what one process (or an operator's command) changes the other sees at once or within its TTL.

// Counted over a day (windows start at midnight UTC), so a run never straddles a window's end.
const AUTH_LIMIT = 4;
const GUESS_LIMIT = 3;
const CATALOGUE_TTL_MS = 1500;

describeOnPostgres('two API processes on one database', () => {
  let deployment: Deployment;
  let apis: RunningProcess[];
  beforeAll(async () => {
    deployment = await createDeployment({
      AUTH_RATE_LIMIT_PER_IP: `${AUTH_LIMIT}/1d`,
      GIFT_CARD_GUESS_RATE_LIMIT_PER_IP: `${GUESS_LIMIT}/1d`,
      STORE_CACHE_TTL_MS: '1000',
      CATALOGUE_CACHE_TTL_MS: String(CATALOGUE_TTL_MS),
    });
    apis = await Promise.all([deployment.startApi(), deployment.startApi(), deployment.startWorker()]);
  }, 120_000);
  afterAll(() => deployment?.close(), 60_000);

  const [a, b] = [() => apis[0]!.url, () => apis[1]!.url];
  const alternate = (i: number) => (i % 2 === 0 ? a() : b());
  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('a client alternating between the APIs gets the sign-in 429 at the same count as on one', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < AUTH_LIMIT + 2; i += 1) {
      const response = await call(alternate(i), 'POST', '/auth/login', {
        headers: from('198.51.100.1'),
        body: { email: 'nobody@example.ee', password: 'wrong password 1', web_store_nav_code: 'WEB' },
      });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([...Array<number>(AUTH_LIMIT).fill(422), 429, 429]);
  });

  it('wrong gift-card codes are counted across the APIs', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < GUESS_LIMIT + 2; i += 1) {
      statuses.push(
        (await call(alternate(i), 'GET', `/virtual-gift-card/balance?code=NOPE${i}XXXXXXXX`, { headers: from('198.51.100.2') })).status,
      );
    }
    expect(statuses.slice(GUESS_LIMIT)).toEqual([429, 429]);
    expect(statuses.slice(0, GUESS_LIMIT)).not.toContain(429);
  });

  it('a registration sent to both APIs at once makes one user and one mail', async () => {
    const email = uniqueEmail('twice');
    const body = { email, firstName: 'Mari', lastName: 'Maasikas' };
    const answers = await Promise.all(
      [a(), b()].map((base) => call(base, 'POST', '/auth/register-simple', { body, headers: from('198.51.100.3') })),
    );
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    await deployment.smtp.waitFor((mail) => sentTo(mail, email), 15_000);
    // Time for a second mail, if the worker was given two jobs.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(deployment.smtp.mails.filter((mail) => sentTo(mail, email))).toHaveLength(1);
    const users = await deployment.database.db.selectFrom('app_user').select('id').where('email', '=', email).execute();
    expect(users).toHaveLength(1);
    // The resubmit window (infra/resubmit.ts) held across the processes: one registration was queued.
    const queued = await deployment.database.db.selectFrom('job_email').select('job_id').where('email', '=', email).execute();
    expect(queued).toHaveLength(1);
  });

  it('a token signed out on one API stops working on the other at once', async () => {
    const email = uniqueEmail('signout');
    expect(
      (
        await call(a(), 'POST', '/auth/register-simple', {
          body: { email, firstName: 'Mari', lastName: 'Maasikas' },
          headers: from('198.51.100.4'),
        })
      ).status,
    ).toBe(200);
    const mail = await deployment.smtp.waitFor((m) => sentTo(m, email), 15_000);
    const verified = await call(
      b(),
      'POST',
      `/auth/verify-email?verificationToken=${encodeURIComponent(tokenFromMail(mail, 'verificationToken'))}`,
      {
        body: { password: GOOD_PASSWORD, passwordRepeat: GOOD_PASSWORD, termsAccepted: true },
        headers: from('198.51.100.4'),
      },
    );
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const bearer = { authorization: `Bearer ${verified.body.accessToken as string}` };
    expect((await call(a(), 'GET', '/user/me', { headers: bearer })).status).toBe(200);
    expect((await call(b(), 'GET', '/user/me', { headers: bearer })).status).toBe(200);
    expect((await call(a(), 'POST', '/auth/logout', { headers: bearer, body: {} })).status).toBeLessThan(300);
    expect((await call(b(), 'GET', '/user/me', { headers: bearer })).status).toBe(401);
  });

  it('an operator API key revoked by the command stops working on both APIs at once', async () => {
    const added = await runCli(['api-key', 'add', 'scale-ops'], { DATABASE_URL: deployment.databaseUrl });
    expect(added.code, added.stderr).toBe(0);
    const key = added.stdout.trim().split('\n').at(-1)!;
    const ctr = '/admin/ctr?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z';
    for (const base of [a(), b()]) expect((await call(base, 'GET', ctr, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    const revoked = await runCli(['api-key', 'revoke', 'scale-ops'], { DATABASE_URL: deployment.databaseUrl });
    expect(revoked.code, revoked.stderr).toBe(0);
    for (const base of [a(), b()]) expect((await call(base, 'GET', ctr, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
  });

  it('a store locked by the command answers 423 on both APIs within STORE_CACHE_TTL_MS, and opens again', async () => {
    // A guest's product page each process keeps (CATALOGUE_CACHE_TTL_MS) is not served past the lock either.
    const id = await createProduct(deployment.database.db, { code: 'LOCK1', name: 'Locked book' });
    for (const base of [a(), b()]) expect((await call(base, 'GET', `/product/${id}`)).status).toBe(200);
    const locked = await runCli(['store', 'lock', 'WEB'], { DATABASE_URL: deployment.databaseUrl });
    expect(locked.code, locked.stderr).toBe(0);
    try {
      const started = Date.now();
      for (const base of [a(), b()]) {
        await expect
          .poll(async () => (await call(base, 'GET', '/basket', { headers: from('198.51.100.5') })).status, {
            timeout: 5000,
            interval: 100,
          })
          .toBe(423);
        expect((await call(base, 'GET', `/product/${id}`)).status).toBe(423);
      }
      expect(Date.now() - started).toBeLessThan(1000 + 1000);
    } finally {
      expect((await runCli(['store', 'unlock', 'WEB'], { DATABASE_URL: deployment.databaseUrl })).code).toBe(0);
    }
    for (const base of [a(), b()]) {
      await expect
        .poll(async () => (await call(base, 'GET', '/basket', { headers: from('198.51.100.5') })).status, { timeout: 5000, interval: 100 })
        .not.toBe(423);
    }
  });

  it('a catalogue edit shows on both APIs within CATALOGUE_CACHE_TTL_MS, a price at once in a basket', async () => {
    const db = deployment.database.db;
    const id = await createProduct(db, { code: 'EDIT1', name: 'Old title', price: 10 });
    await setStock(db, id, await createShop(db, { code: 'EDIT', name: 'Edit shop' }), 5);
    const title = async (base: string) =>
      JSON.stringify((await call(base, 'GET', `/product/${id}`, { headers: from('198.51.100.6') })).body);
    for (const base of [a(), b()]) expect(await title(base)).toContain('Old title');
    const basket = await call(b(), 'POST', '/basket/add-product', { body: { productId: id, quantity: 1 }, headers: from('198.51.100.6') });
    expect(basket.status, JSON.stringify(basket.body)).toBe(200);
    // As an import on another process writes it.
    await db
      .updateTable('product')
      .set({ name: 'New title', shop_price_cents: 1500, updated_at: Date.now() })
      .where('id', '=', id)
      .execute();
    const edited = Date.now();
    // The basket prices from the price version the change moved on: the new price at once.
    const read = await call(b(), 'GET', '/basket', {
      headers: { ...from('198.51.100.6'), 'basket-token': basket.body.basketToken as string },
    });
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).toMatch(/"(unitPrice|price)":15\b/);
    for (const base of [a(), b()]) {
      await expect.poll(() => title(base), { timeout: CATALOGUE_TTL_MS + 2000, interval: 100 }).toContain('New title');
    }
    expect(Date.now() - edited).toBeLessThan(CATALOGUE_TTL_MS + 1000);
  });
});

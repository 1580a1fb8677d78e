import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImporter } from '../../src/infra/import/index.js';
import { importKinds } from '../../src/import-kinds.js';
import { subscriptionCardPruning } from '../../src/modules/subscriptions/index.js';
import { importLines } from '../basket/import-helpers.js';
import { DAY, PLAN_LINES, call, createCustomer, saveCard, startSubscriptionShop, type SubscriptionShop } from './helpers.js';

let s: SubscriptionShop;
beforeAll(async () => {
  s = await startSubscriptionShop();
});
afterAll(async () => s.close());

describe('import subscription-plans', () => {
  it('upserts by code, is idempotent, and reports bad lines by number', async () => {
    const again = await importLines(s.t, 'subscription-plans', PLAN_LINES);
    expect(again.statusCode).toBe(200);
    expect(again.json().outcomes).toEqual({ unchanged: PLAN_LINES.length });
    const file = join(tmpdir(), `plans-${Date.now()}.ndjson`);
    const bad = [
      { ...PLAN_LINES[0], monthlyPrice: 10.99 },
      { code: 'X1', kind: 'AUDIO_CREDITS', titles: { et: 'X' }, monthlyPrice: 5, stores: ['WEB'] },
      { code: 'X2', kind: 'EBOOK_SHELF', titles: { et: 'X' }, shelfSize: 3, credits: 2, monthlyPrice: 5, stores: ['WEB'] },
      'not json',
      { code: 'X3', kind: 'PODCAST', titles: { et: 'X' }, monthlyPrice: 5, stores: ['WEB'] },
      { ...PLAN_LINES[2], kind: 'AUDIO_UNLIMITED', shelfSize: undefined },
    ];
    writeFileSync(file, bad.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'));
    const reported: string[] = [];
    const run = createImporter(importKinds, { db: s.t.database.db, clock: { now: () => Date.now() }, log: s.t.app.log }).start(
      'subscription-plans',
      {
        force: false,
      },
    );
    const summary = await run(file, (line) => reported.push(line));
    expect(summary.outcomes).toEqual({ updated: 1 });
    expect(reported.map((line) => line.split(':')[0])).toEqual(['line 2', 'line 3', 'line 4', 'line 5', 'line 6']);
    expect(reported[0]).toMatch(/credits/);
    expect(reported[4]).toMatch(/kind/);
    await importLines(s.t, 'subscription-plans', [PLAN_LINES[0]]);
  });

  it('GET /subscription-plan lists the active plans the store sells, titles in the caller language', async () => {
    const et = await s.t.app.inject({ method: 'GET', url: '/subscription-plan' });
    expect(et.statusCode).toBe(200);
    expect(et.json().map((plan: { code: string }) => plan.code)).toEqual(['AUDIO1', 'AUDIOMAX', 'SHELF5']);
    expect(et.json()[0]).toEqual({
      id: s.plans.AUDIO1,
      code: 'AUDIO1',
      kind: 'AUDIO_CREDITS',
      title: 'Audio 1',
      creditsPerMonth: 1,
      shelfSize: null,
      monthlyPrice: 9.99,
      trialDays: 14,
      stores: ['WEB', 'WEB2'],
    });
    const en = await s.t.app.inject({ method: 'GET', url: '/subscription-plan', headers: { 'x-app-language': 'en' } });
    expect(en.json().map((plan: { title: string }) => plan.title)).toEqual(['Audio one', 'Audio piiramatu', 'Shelf of 5']);
    const web2 = await s.t.app.inject({ method: 'GET', url: '/subscription-plan', headers: { store: 'WEB2' } });
    expect(web2.json().map((plan: { code: string }) => plan.code)).toEqual(['AUDIO1']);
  });
});

describe('saved cards', () => {
  it('saves a card through EveryPay with an unscheduled token agreement, keeping only token, brand, last four and expiry', async () => {
    const customer = await createCustomer(s.t.database.db);
    const cardId = await saveCard(s, customer);
    const oneoff = s.everypay.requests.filter((r) => r.path === '/api/v4/payments/oneoff').at(-1)!;
    expect(oneoff.body).toMatchObject({ amount: 0, request_token: true, token_agreement: 'unscheduled' });
    const listed = await call(s, customer, 'GET', '/subscription-credit-card');
    const year = new Date().getUTCFullYear() + 3;
    expect(listed.json()).toEqual([
      {
        id: cardId,
        brand: 'master_card',
        lastFour: '1002',
        expiryMonth: 12,
        expiryYear: year,
        isDefault: true,
        createdAt: expect.any(String),
      },
    ]);
    const row = await s.t.database.db.selectFrom('subscription_card').selectAll().where('id', '=', cardId).executeTakeFirstOrThrow();
    const token = s.everypay.cards().at(-1)!.token;
    // The gateway's token sealed under the test key (card-tokens.test.ts charges with it).
    expect(row.token).toMatch(/^v1\.test1\./);
    // Nothing of the card but these: no number, no BIN, no holder, no CVC, and no token in clear.
    const stored = JSON.stringify(row);
    for (const secret of ['5204740000001002', '520474', 'Test Holder', token]) expect(stored).not.toContain(secret);
    expect(Object.keys(row).sort()).toEqual(
      [
        'id',
        'client_account_id',
        'store_code',
        'gateway',
        'state',
        'order_reference',
        'payment_reference',
        'redirect',
        'token',
        'brand',
        'last_four',
        'expiry_month',
        'expiry_year',
        'is_default',
        'created_at',
        'updated_at',
      ].sort(),
    );
  });

  it('a declined card-saving payment saves nothing: the card is DECLINED with no card data, listed nowhere', async () => {
    const customer = await createCustomer(s.t.database.db);
    const id = await saveCard(s, customer, 'decline');
    expect((await call(s, customer, 'GET', '/subscription-credit-card')).json()).toEqual([]);
    const rows = await s.t.database.db
      .selectFrom('subscription_card')
      .select(['id', 'state', 'token', 'brand', 'last_four', 'expiry_month', 'expiry_year'])
      .where('client_account_id', '=', customer.clientAccountId)
      .execute();
    expect(rows).toEqual([{ id, state: 'DECLINED', token: null, brand: null, last_four: null, expiry_month: null, expiry_year: null }]);
  });

  it('a return link names one card: another id, a changed checksum or none is refused and asks the gateway nothing', async () => {
    const customer = await createCustomer(s.t.database.db);
    const started = await call(s, customer, 'POST', '/subscription-credit-card');
    expect(started.statusCode, started.body).toBe(200);
    const sent = s.everypay.requests.filter((r) => r.path === '/api/v4/payments/oneoff').at(-1)!;
    const link = new URL(String((sent.body as { customer_url: string }).customer_url));
    const cardId = Number(link.searchParams.get('cardId'));
    const checksum = link.searchParams.get('checksum')!;
    expect(checksum).toMatch(/^[0-9a-f]{64}$/);
    const back = (query: string) => s.t.app.inject({ method: 'GET', url: `/subscription-credit-card/return?${query}` });
    const asked = s.everypay.requests.length;
    const flipped = `${checksum.slice(0, -1)}${checksum.endsWith('0') ? '1' : '0'}`;
    for (const query of [`cardId=${cardId}&checksum=${flipped}`, `cardId=${cardId - 1}&checksum=${checksum}`]) {
      const refused = await back(query);
      expect(refused.statusCode, query).toBe(404);
      expect(refused.headers.location).toBeUndefined();
    }
    expect((await back(`cardId=${cardId}`)).statusCode).toBe(400);
    expect(s.everypay.requests.length).toBe(asked);
    const form = started.json() as { fields: Record<string, string> };
    const own = await fetch(await s.everypay.shopper(form.fields.payment_reference!, 'pay'), { redirect: 'manual' });
    expect(own.status).toBe(303);
    expect(own.headers.get('location')).toContain(`cardId=${cardId}&saved=true`);
    expect(s.everypay.requests.length).toBeGreaterThan(asked);
  });

  it('default and delete check ownership; deleting the default makes another card the default', async () => {
    const owner = await createCustomer(s.t.database.db);
    const other = await createCustomer(s.t.database.db);
    const first = await saveCard(s, owner);
    const second = await saveCard(s, owner);
    expect((await call(s, other, 'PUT', `/subscription-credit-card/${first}/default`)).statusCode).toBe(404);
    expect((await call(s, other, 'DELETE', `/subscription-credit-card/${first}`)).statusCode).toBe(404);
    expect((await call(s, null, 'GET', '/subscription-credit-card')).statusCode).toBe(401);
    expect((await call(s, owner, 'PUT', '/subscription-credit-card/abc/default')).statusCode).toBe(400);
    const made = await call(s, owner, 'PUT', `/subscription-credit-card/${second}/default`);
    expect(made.statusCode).toBe(200);
    expect(made.json()).toMatchObject({ id: second, isDefault: true });
    expect((await call(s, owner, 'DELETE', `/subscription-credit-card/${second}`)).statusCode).toBe(204);
    const left = (await call(s, owner, 'GET', '/subscription-credit-card')).json();
    expect(left).toMatchObject([{ id: first, isDefault: true }]);
  });

  it('GET /subscription-credit-card is paged (page, per-page, X-Pagination-*), oldest first, saved cards only', async () => {
    // Saved cards are bounded only by the card-check limit per hour: a client's list grows. 22 saved
    // cards (two through EveryPay, the rest copies of the first) and a declined one, which is not listed.
    const customer = await createCustomer(s.t.database.db);
    const first = await saveCard(s, customer);
    await saveCard(s, customer, 'decline');
    const db = s.t.database.db;
    const row = await db.selectFrom('subscription_card').selectAll().where('id', '=', first).executeTakeFirstOrThrow();
    for (let n = 0; n < 20; n += 1) {
      const copy = { ...row, id: undefined, is_default: false, token: `${row.token}-${n}`, order_reference: `${row.order_reference}-${n}` };
      await db
        .insertInto('subscription_card')
        .values(copy as never)
        .execute();
    }
    await saveCard(s, customer);
    const saved = await db
      .selectFrom('subscription_card')
      .select('id')
      .where('client_account_id', '=', customer.clientAccountId)
      .where('state', '=', 'ACTIVE')
      .orderBy('id')
      .execute();
    const ids = saved.map((card) => Number(card.id));
    expect(ids).toHaveLength(22);

    const page1 = await call(s, customer, 'GET', '/subscription-credit-card');
    expect(page1.statusCode, page1.body).toBe(200);
    expect(page1.json().map((card: { id: number }) => card.id)).toEqual(ids.slice(0, 20));
    expect(page1.json()[0]).toMatchObject({ id: first, isDefault: true });
    expect(page1.headers).toMatchObject({
      'x-pagination-current-page': '1',
      'x-pagination-page-count': '2',
      'x-pagination-per-page': '20',
      'x-pagination-total-count': '22',
    });
    expect(page1.headers.link).toContain('rel="next"');
    const page2 = await call(s, customer, 'GET', '/subscription-credit-card?page=2');
    expect(page2.json().map((card: { id: number }) => card.id)).toEqual(ids.slice(20));
    const small = await call(s, customer, 'GET', '/subscription-credit-card?page=3&per-page=5');
    expect(small.json().map((card: { id: number }) => card.id)).toEqual(ids.slice(10, 15));
    expect(small.headers['x-pagination-page-count']).toBe('5');
    expect((await call(s, customer, 'GET', '/subscription-credit-card?page=0')).statusCode).toBe(400);
  });

  it('maintenance removes never-confirmed (pending or declined) and expired cards', async () => {
    const customer = await createCustomer(s.t.database.db);
    const kept = await saveCard(s, customer);
    const expired = await saveCard(s, customer);
    const declined = await saveCard(s, customer, 'decline');
    await s.t.database.db.updateTable('subscription_card').set({ expiry_year: 2020 }).where('id', '=', expired).execute();
    const started = await call(s, customer, 'POST', '/subscription-credit-card');
    expect(started.statusCode).toBe(200);
    const pending = await s.t.database.db
      .selectFrom('subscription_card')
      .select('id')
      .where('client_account_id', '=', customer.clientAccountId)
      .where('state', '=', 'PENDING')
      .executeTakeFirstOrThrow();
    const cardIds = async () =>
      (
        await s.t.database.db
          .selectFrom('subscription_card')
          .select('id')
          .where('client_account_id', '=', customer.clientAccountId)
          .orderBy('id')
          .execute()
      ).map((row) => Number(row.id));
    // Within the day a pending or declined card waits for its gateway's last word; the expired card goes.
    expect(await subscriptionCardPruning(s.t.database.db, Date.now())).toBe(1);
    expect(await cardIds()).toEqual([kept, declined, Number(pending.id)]);
    // A day on, neither was confirmed (the other tests' declined cards go too).
    expect(await subscriptionCardPruning(s.t.database.db, Date.now() + 2 * DAY)).toBeGreaterThanOrEqual(2);
    expect(await cardIds()).toEqual([kept]);
  });
});

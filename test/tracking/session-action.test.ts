import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { newToken } from '../../src/infra/tokens.js';
import { createSessionActionRecorder, pruneSessionActions } from '../../src/modules/tracking/index.js';
import { insertClient, insertProduct, exportUser, T0 } from '../data-export/fixtures.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { recordingLogger } from '../helpers/logger.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let token: string;

const post = (body: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/event/session-action',
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
const actions = () => t.database.db.selectFrom('session_action').selectAll().orderBy('id').execute();

beforeAll(async () => {
  t = await createTestApp();
  await insertProduct(t.database.db, { code: 'BOOK-1', createdAt: T0, stores: ['WEB', 'WEB2'] });
  const clientAccountId = await insertClient(t.database.db, 'W3000001', T0);
  const account = await t.database.db
    .selectFrom('client_account')
    .select(['user_id'])
    .where('id', '=', clientAccountId)
    .executeTakeFirstOrThrow();
  const minted = newToken();
  token = minted.token;
  await t.database.db
    .insertInto('access_token')
    .values({
      token_hash: minted.hash,
      user_id: account.user_id,
      client_account_id: clientAccountId,
      store_code: 'WEB',
      role: 'SIMPLE',
      created_at: Date.now(),
      expires_at: Date.now() + 3_600_000,
      login_method: 'password',
      native_form: false,
    })
    .execute();
});

afterAll(() => t.close());

describe('POST /event/session-action', () => {
  it("records a guest's and a client's actions in batches, without waiting for the write", async () => {
    const guest = await post({ session: ' guest-session-1 ', product: 'BOOK-1', actionType: 'VIEW' }, { store: 'WEB2' });
    expect(guest.statusCode, guest.body).toBe(202);
    expect(guest.json()).toEqual({});
    const client = await post(
      { session: 'client-session', product: 'BOOK-1', actionType: 'ADD_TO_BASKET' },
      { authorization: `Bearer ${token}` },
    );
    expect(client.statusCode, client.body).toBe(202);
    await expect.poll(async () => (await actions()).length, { timeout: 3000 }).toBe(2);
    const [first, second] = await actions();
    expect(first).toMatchObject({
      session_id: 'guest-session-1',
      store_code: 'WEB2',
      product_code: 'BOOK-1',
      client_code: null,
      action_type: 'VIEW',
    });
    expect(second).toMatchObject({
      session_id: 'client-session',
      store_code: 'WEB',
      client_code: 'W3000001',
      action_type: 'ADD_TO_BASKET',
    });

    const { authorization } = await exportUser(t.database.db);
    const exported = (await t.app.inject({ method: 'GET', url: '/export/session', headers: { authorization } })).json();
    expect(exported.map((a: { client: string; webStore: string }) => [a.client, a.webStore])).toEqual([
      ['', 'WEB2'],
      ['W3000001', 'WEB'],
    ]);
  });

  it.each([
    [{ product: 'BOOK-1', actionType: 'VIEW' }, 'session'],
    [{ session: 'has space', product: 'BOOK-1', actionType: 'VIEW' }, 'session'],
    [{ session: 'x'.repeat(101), product: 'BOOK-1', actionType: 'VIEW' }, 'session'],
    [{ session: 's1', product: 'BOOK-1', actionType: 'BUY' }, 'actionType'],
    [{ session: 's1', product: '', actionType: 'VIEW' }, 'product'],
  ])('bad input %j is a 422 on %s and records nothing', async (body, field) => {
    const before = (await actions()).length;
    expect(expectFieldErrors(await post(body))).toContain(field);
    // A good action after the bad one is the barrier: the recorder writes in the order it was
    // given, so once the good one is stored, anything the bad request had queued would be too.
    const control = `control-${field}-${before}`;
    expect((await post({ session: control, product: 'BOOK-1', actionType: 'VIEW' })).statusCode).toBe(202);
    await expect.poll(async () => (await actions()).some((action) => action.session_id === control), { timeout: 3000 }).toBe(true);
    expect((await actions()).map((action) => action.session_id).slice(before)).toEqual([control]);
  });

  it('a bad token is a 401, a bad body a 400, an unknown store a 400', async () => {
    expectErrorBody(
      await post({ session: 's1', product: 'BOOK-1', actionType: 'VIEW' }, { authorization: 'Bearer nope' }),
      401,
      'Unauthorized',
    );
    expectErrorBody(
      await t.app.inject({
        method: 'POST',
        url: '/event/session-action',
        headers: { 'content-type': 'application/json' },
        payload: '{"session":',
      }),
      400,
      'Bad Request',
    );
    expectErrorBody(await post({ session: 's1', product: 'BOOK-1', actionType: 'VIEW' }, { store: 'SHOP' }), 400, 'Bad Request');
  });
});

describe('the recorder', () => {
  it('writes large bursts in batches and drops what is not a sane session id', async () => {
    const { log } = recordingLogger();
    const recorder = createSessionActionRecorder(t.database, log, { intervalMs: 10_000, batchSize: 500 });
    const before = (await actions()).length;
    for (let i = 0; i < 1203; i += 1) {
      recorder.record({
        sessionId: `burst-${i}`,
        storeCode: 'WEB',
        productCode: 'BOOK-1',
        clientCode: null,
        actionType: 'VIEW',
        createdAt: T0 + i,
      });
    }
    recorder.record({ sessionId: 'bad id', storeCode: 'WEB', productCode: 'BOOK-1', clientCode: null, actionType: 'VIEW', createdAt: T0 });
    recorder.record({
      sessionId: 'y'.repeat(101),
      storeCode: 'WEB',
      productCode: 'BOOK-1',
      clientCode: null,
      actionType: 'VIEW',
      createdAt: T0,
    });
    await recorder.flush();
    expect((await actions()).length).toBe(before + 1203);
  });

  it('logs a failed write and never throws to the caller', async () => {
    const { log, lines } = recordingLogger();
    const broken = createDatabase('sqlite::memory:'); // no tables: every insert fails
    const recorder = createSessionActionRecorder(broken, log, { intervalMs: 5 });
    expect(() =>
      recorder.record({ sessionId: 's', storeCode: 'WEB', productCode: 'P', clientCode: null, actionType: 'VIEW', createdAt: 1 }),
    ).not.toThrow();
    await recorder.flush();
    expect(lines.some((line) => line.level === 'error' && line.msg === 'session actions not recorded')).toBe(true);
    await broken.close();
  });
});

describe('retention', () => {
  it('pruning deletes session actions older than the cut-off, in batches, and nothing newer', async () => {
    const db = t.database.db;
    await db.deleteFrom('session_action').execute();
    const cutoff = T0;
    const rows = Array.from({ length: 12_345 }, (_, i) => ({
      session_id: `old-${i}`,
      store_code: 'WEB',
      product_code: 'BOOK-1',
      client_code: null,
      action_type: 'VIEW' as const,
      created_at: cutoff - 1 - i,
    }));
    for (let i = 0; i < rows.length; i += 1000)
      await db
        .insertInto('session_action')
        .values(rows.slice(i, i + 1000))
        .execute();
    await db
      .insertInto('session_action')
      .values({ session_id: 'kept', store_code: 'WEB', product_code: 'BOOK-1', client_code: null, action_type: 'VIEW', created_at: cutoff })
      .execute();
    expect(await pruneSessionActions(db, cutoff)).toBe(12_345);
    expect((await actions()).map((a) => a.session_id)).toEqual(['kept']);
    expect(await pruneSessionActions(db, cutoff)).toBe(0);
  });
});

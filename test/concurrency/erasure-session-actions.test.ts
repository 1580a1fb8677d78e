import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duringErasure } from '../gdpr/erasure-helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Session actions are queued and written in batches after the request that recorded them answered
// (modules/tracking). A client's action recorded as their erasure runs, written after the erasure
// deleted their actions, must not be written with their client code: the batch takes the client's
// lock in share mode and leaves an erased client out. On PostgreSQL the client's request meets the
// erasure in flight (their token still works until it commits); on SQLite the action recorded
// before the erasure is written after it.

let t: TestApp;
let productCode: string;
beforeAll(async () => {
  t = await createTestApp();
  const id = await createProduct(t.database.db, { name: 'Vaadatud raamat' });
  productCode = (await t.database.db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow()).code;
});
afterAll(async () => t?.close());

let sessions = 0;
/** POST /event/session-action in a session of its own, as the client with `token` or as a guest. */
const act = (token: string | undefined, actionType: 'VIEW' | 'ADD_TO_BASKET') =>
  t.app.inject({
    method: 'POST',
    url: '/event/session-action',
    headers: { store: 'WEB', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    payload: { session: `erasure-session-${++sessions}`, product: productCode, actionType },
  });

const actionsOf = (clientCode: string) =>
  t.database.db.selectFrom('session_action').select('id').where('client_code', '=', clientCode).execute();
const actionsInSession = (sessionId: string) =>
  t.database.db.selectFrom('session_action').select('id').where('session_id', '=', sessionId).execute();

describe("the erasure and the client's session actions still to be written", () => {
  it('an action recorded before or during the erasure and written after it is not kept with the client', async () => {
    for (let round = 0; round < 3; round++) {
      const client = await createCustomer(t.database.db);
      const before = await act(client.token, 'VIEW');
      expect(before.statusCode, before.body).toBe(202);
      const during = await duringErasure(t, client, () => act(client.token, 'ADD_TO_BASKET'));
      // PostgreSQL records it (the token still works while the erasure is open); SQLite answers after it.
      expect([202, 401], during.body).toContain(during.statusCode);
      // A guest's action after both: once it is written, so are the batches before it.
      const marker = await act(undefined, 'VIEW');
      expect(marker.statusCode, marker.body).toBe(202);
      await expect.poll(async () => (await actionsInSession(`erasure-session-${sessions}`)).length, { timeout: 5000 }).toBe(1);
      expect(await actionsOf(client.clientCode)).toEqual([]);
    }
  });

  it("a client who is not erased has their actions written as before, in a batch with others'", async () => {
    const client = await createCustomer(t.database.db);
    expect((await act(client.token, 'VIEW')).statusCode).toBe(202);
    expect((await act(undefined, 'VIEW')).statusCode).toBe(202);
    await expect.poll(async () => (await actionsInSession(`erasure-session-${sessions}`)).length, { timeout: 5000 }).toBe(1);
    expect(await actionsOf(client.clientCode)).toHaveLength(1);
  });
});

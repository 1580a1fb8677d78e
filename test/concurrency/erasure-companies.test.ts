import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer, createEmployee } from '../helpers/customers.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

// An employee's erasure and their master's removal of them at once. A company user change takes the
// company's lock, then the members' accounts; the erasure takes the same two in the same order (the
// person's companies, then their client accounts), so neither waits for the other holding what it
// needs: no deadlock (a 500), and the erasure ends the account whichever came first.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t?.close());

describe("an employee's erasure and the master removing them at once", () => {
  it.runIf(engine === 'postgres')('both end without a 500, with the account erased', async () => {
    const db = t.database.db;
    for (let round = 0; round < 3; round++) {
      const master = await createCustomer(db, { kind: 'BUSINESS' });
      const employee = await createEmployee(db, master);
      let erased!: Promise<LightMyRequestResponse>;
      let removed!: Promise<LightMyRequestResponse>;
      // The employee's account held (as any writer of it holds it) until both requests wait on a lock:
      // the erasure then takes it and what it takes after it while the removal holds what it takes first.
      await db.transaction().execute(async (trx) => {
        await trx.selectFrom('client_account').select('id').where('id', '=', employee.clientAccountId).forNoKeyUpdate().execute();
        erased = as(t, employee.token)('DELETE', '/client-account', {});
        await until('the erasure to wait', async () => (await lockWaiters(db)) >= 1);
        removed = as(t, master.token)('DELETE', `/company-user/${employee.clientAccountId}`);
        await until('the removal to wait', async () => (await lockWaiters(db)) >= 2);
      });
      const [erasure, removal] = await Promise.all([erased, removed]);
      expect(erasure.statusCode, erasure.body).toBe(204);
      expect([200, 404], removal.body).toContain(removal.statusCode);
      const account = await db
        .selectFrom('client_account')
        .select('status')
        .where('id', '=', employee.clientAccountId)
        .executeTakeFirstOrThrow();
      expect(account.status).toBe('ERASED');
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as migration from '../../src/db/migrations/2026_11_30_2030_close_erased_wholesale_requests.js';
import { wholesaleCommand } from '../../src/modules/accounts/index.js';
import { wholesaleForm } from '../helpers/accounts.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { as } from '../profile/helpers.js';

// Migration 2026_11_30_2030 closes the pending wholesale applications an erasure emptied before the
// erasure closed them itself: ERASED, decided when the erasure ran (the erased user's updated_at). It
// leaves alone an application decided before its contact's erasure, and every other one. Down puts
// them back as the erasure left them (pending, undecided); up again gives what the erasure now writes.
// On both engines.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const db = () => t.database.db;

const emailOf = async (person: TestCustomer) =>
  (
    await db()
      .selectFrom('client_account')
      .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
      .select('app_user.email')
      .where('client_account.id', '=', person.clientAccountId)
      .executeTakeFirstOrThrow()
  ).email;

/** A customer who applied for wholesale with their own email: the customer and the request's id. */
async function applicant(): Promise<{ person: TestCustomer; requestId: number }> {
  const person = await createCustomer(db());
  const email = await emailOf(person);
  const applied = await t.app.inject({ method: 'POST', url: '/auth/register-wholesale', payload: wholesaleForm(email) });
  expect(applied.statusCode, applied.body).toBe(200);
  const request = await db().selectFrom('wholesale_request').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { person, requestId: Number(request.id) };
}

async function erase(person: TestCustomer): Promise<void> {
  const erased = await as(t, person.token)('DELETE', '/client-account', {});
  expect(erased.statusCode, erased.body).toBe(204);
}

const requests = (ids: number[]) =>
  db()
    .selectFrom('wholesale_request')
    .select(['id', 'email', 'form', 'status', 'decided_at'])
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();

describe('migration 2026_11_30_2030_close_erased_wholesale_requests', () => {
  it('closes the pending applications an erasure emptied, as the erasure now does, and only those', async () => {
    const erasedPending = await applicant();
    await erase(erasedPending.person);
    const erasedRejected = await applicant();
    await wholesaleCommand({ db: db(), config: t.config }, ['reject', String(erasedRejected.requestId)], () => {});
    await erase(erasedRejected.person);
    const pending = await applicant();
    const ids = [erasedPending.requestId, erasedRejected.requestId, pending.requestId];
    const asErased = await requests(ids);
    expect(asErased.map((request) => request.status)).toEqual(['ERASED', 'REJECTED', 'PENDING']);

    await migration.down(db());
    const [before] = await requests([erasedPending.requestId]);
    expect(before, 'as the erasure left it before').toMatchObject({ status: 'PENDING', decided_at: null, form: '{}' });

    await migration.up(db());
    expect(await requests(ids)).toEqual(asErased);
  });
});

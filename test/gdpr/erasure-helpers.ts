import type { LightMyRequestResponse } from 'fastify';
import { eraseSubject, loadSubject } from '../../src/modules/gdpr/gdpr.service.js';
import { personalDataParts } from '../../src/modules/gdpr/personal-data-parts.js';
import { type TestCustomer, userIdOf } from '../helpers/customers.js';
import { whileTransactionOpen } from '../helpers/overlapping-writes.js';
import type { TestApp } from '../helpers/test-app.js';

/**
 * The client's erasure as DELETE /client-account runs it (eraseSubject, in its own transaction), held
 * open (uncommitted) while `during` (a request of the same client) starts: on PostgreSQL the request
 * meets the erasure in flight; on SQLite it waits for it. Answers the request's response.
 */
export async function duringErasure(
  t: TestApp,
  client: TestCustomer,
  during: () => Promise<LightMyRequestResponse>,
): Promise<LightMyRequestResponse> {
  const db = t.database.db;
  const userId = await userIdOf(db, client);
  let answer!: LightMyRequestResponse;
  await whileTransactionOpen(
    db,
    async (trx) => eraseSubject(trx, personalDataParts, (await loadSubject(trx, userId))!, Date.now()),
    async () => (answer = await during()),
  );
  return answer;
}

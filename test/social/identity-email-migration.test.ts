import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as migration from '../../src/db/migrations/2026_11_30_0600_add_social_identity_email_verified.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Migration 2026_11_30_0600 records whether the provider verified an identity's email: the
// identities already there count as unverified (nobody recorded it), and their addresses are stored
// as every address is (trimmed, lower-cased; only spaces is none). On both engines; down drops the
// column and up takes the rows again.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

let counter = 0;

/** A user and one social identity with `email` as the code of its time stored it. */
async function identityWith(email: string | null): Promise<number> {
  const db = t.database.db;
  const at = Date.UTC(2026, 10, 1);
  counter += 1;
  const user = await db
    .insertInto('app_user')
    .values({
      email: `identity-migration-${counter}@example.ee`,
      password_hash: null,
      email_verified: true,
      newsletter: false,
      activated_at: at,
      language: 'et',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const row = await db
    .insertInto('social_identity')
    .values({ provider: 'google', subject: `identity-migration-${counter}`, user_id: user.id, email, created_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

describe('migration 2026_11_30_0600_add_social_identity_email_verified', () => {
  it('takes the identities there as unverified and stores their addresses trimmed and lower-cased', async () => {
    const db = t.database.db;
    const ids = [
      await identityWith('  Spaced@Example.EE '),
      await identityWith('plain@example.ee'),
      await identityWith('   '),
      await identityWith(null),
    ];
    await db.updateTable('social_identity').set({ email_verified: true }).where('id', '=', ids[1]!).execute();
    await migration.down(db);
    await migration.up(db);
    const rows = await db
      .selectFrom('social_identity')
      .select(['id', 'email', 'email_verified'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
    expect(rows.map((row) => ({ email: row.email, verified: Boolean(row.email_verified) }))).toEqual([
      { email: 'spaced@example.ee', verified: false },
      { email: 'plain@example.ee', verified: false },
      { email: null, verified: false },
      { email: null, verified: false },
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as migration from '../../src/db/migrations/2026_11_29_0840_create_unconfirmed_login_email.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Migration 2026_11_29_0840 marks the login emails that nobody confirmed: those of users a social
// sign-up made (the user and its first identity written at one action time) while the address is
// still the one the sign-up gave (the provider's, in any case, or a placeholder). Whether that
// provider had verified it was not recorded, so they all count as unconfirmed. Users who registered,
// or whose identity was linked later, or who changed the address through the link since, keep a
// confirmed one. On both engines; down drops the table and up marks them again.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t?.close());

const DAY = 86_400_000;
let counter = 0;

/** A user as the code of its time wrote it, with a password or not; with `identity`, a social identity made at `identity.at`. */
async function user(email: string, at: number, password: boolean, identity?: { email: string | null; at: number }): Promise<number> {
  const db = t.database.db;
  const row = await db
    .insertInto('app_user')
    .values({
      email,
      password_hash: password ? 'argon2-hash-of-a-registration' : null,
      email_verified: true,
      newsletter: false,
      activated_at: at,
      language: 'et',
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = Number(row.id);
  if (identity) {
    counter += 1;
    await db
      .insertInto('social_identity')
      .values({ provider: 'facebook', subject: `migration-${counter}`, user_id: id, email: identity.email, created_at: identity.at })
      .execute();
  }
  return id;
}

const marked = async () =>
  (await t.database.db.selectFrom('unconfirmed_login_email').select(['user_id', 'since']).orderBy('user_id').execute()).map((row) => ({
    userId: Number(row.user_id),
    since: Number(row.since),
  }));

describe('migration 2026_11_29_0840_create_unconfirmed_login_email', () => {
  it("marks the social sign-ups' addresses nobody confirmed, and only those", async () => {
    const at = Date.UTC(2026, 10, 1);
    // Made by a social sign-up with the provider's address, as it came (any case) or normalised.
    const signUp = await user('squatted@example.ee', at, false, { email: 'squatted@example.ee', at });
    const signUpCase = await user('mixed@example.ee', at + 1, false, { email: ' Mixed@Example.EE', at: at + 1 });
    // Made by a social sign-up without a usable address: the placeholder nobody confirmed.
    const placeholder = await user('facebook.nomail-0123456789abcdef0123456789abcdef@users.invalid', at + 2, false, {
      email: null,
      at: at + 2,
    });
    // Made by a social sign-up, and a password set since (a reset link): still counts as not confirmed.
    const withPassword = await user('reset@example.ee', at + 3, true, { email: 'reset@example.ee', at: at + 3 });
    // Made by a social sign-up, and the address changed since through the link to the new one.
    await user('mine@example.ee', at + 4, false, { email: 'theirs@example.ee', at: at + 4 });
    // Registered (with the verification link), and a provider's identity linked a day later.
    await user('registered@example.ee', at + 5, true, { email: 'registered@example.ee', at: at + 5 + DAY });
    // Registered, no identity.
    await user('plain@example.ee', at + 6, true);

    await migration.down(t.database.db);
    const tables = (await t.database.db.introspection.getTables()).map((table) => table.name);
    expect(tables).not.toContain('unconfirmed_login_email');
    await migration.up(t.database.db);

    expect(await marked()).toEqual([
      { userId: signUp, since: at },
      { userId: signUpCase, since: at + 1 },
      { userId: placeholder, since: at + 2 },
      { userId: withPassword, since: at + 3 },
    ]);
    // Deleting a user takes its mark with it.
    await t.database.db.deleteFrom('social_identity').where('user_id', '=', signUp).execute();
    await t.database.db.deleteFrom('app_user').where('id', '=', signUp).execute();
    expect((await marked()).map((row) => row.userId)).toEqual([signUpCase, placeholder, withPassword]);
  });
});

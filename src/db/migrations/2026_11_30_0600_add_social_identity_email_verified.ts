import { sql, type Kysely } from 'kysely';

// Whether the provider vouched for the email it gave when the identity was linked (Google's and
// Apple's email_verified; never Facebook's), as auth_record has it for the sign-in in flight. Before
// this, social_identity kept the address but not the provider's word on it. Identities already
// there are taken as unverified: nobody recorded what their provider said (as migration
// 2026_11_29_0840 takes their sign-ups' addresses as unconfirmed).
//
// The social clients now store the provider's address as every address is stored (trimmed and
// lower-cased, infra/email-address.ts); before, one with surrounding spaces was kept with them.
// Those rows are normalised here, and an address of nothing but spaces is none.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('social_identity')
    .addColumn('email_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await db
    .updateTable('social_identity')
    .set({ email: sql`nullif(lower(trim(email)), '')` })
    .where('email', 'is not', null)
    .where(sql<boolean>`email <> lower(trim(email))`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('social_identity').dropColumn('email_verified').execute();
}

import { sql, type Kysely } from 'kysely';

// Whether a user's login email is confirmed (modules/profile). What the shop keeps by email that is
// not the account's own (guest orders billed to it, back-in-stock requests, newsletter rows, gift
// cards sent to it, events and mails naming it) reaches a user only while it is. Every way to a login
// email but one confirms it: a registration's verification link, an email change confirmed through
// the link to the new address, the back office's users import, a provider-verified address linked to
// an existing account. The one that does not is a social sign-up that made a new user: before
// c508fc7 it took the provider's address whether or not the provider had verified it (any Facebook
// one, Google's with email_verified false), and social_identity does not record which. So a row
// here marks a user whose login email is NOT confirmed; no row: confirmed.
//
// The users made by social sign-up are told apart by their identity: the sign-up wrote the user and
// its first identity in one transaction with one action time, so social_identity.created_at equals
// app_user.created_at; an identity linked to a user who existed already came later. All of them are
// marked while their login email is still the one the sign-up gave (the provider's address, any
// case, or a `@users.invalid` placeholder): whether that provider verified it is not recorded, so it
// counts as not confirmed (Google and Apple users confirm by signing in again, when the provider
// says verified; anyone by PUT /user/me with the same address and the link mailed to it). One whose
// login email differs changed it through the link to the new address, which confirmed it. Erring on
// the side of unconfirmed: a password set since (a verification or reset link the mailbox's owner
// followed) does not count, as it does not at run time either; nor does an email changed away and
// back again through links (not told apart from never changed).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('unconfirmed_login_email')
    .addColumn('user_id', 'bigint', (c) => c.primaryKey().references('app_user.id').onDelete('cascade'))
    // When the address came unconfirmed (the sign-up, or this migration for older users).
    .addColumn('since', 'bigint', (c) => c.notNull())
    .execute();
  await sql`
    insert into unconfirmed_login_email (user_id, since)
    select u.id, u.created_at from app_user u
    where exists (
      select 1 from social_identity si
      where si.user_id = u.id and si.created_at = u.created_at
        and (lower(trim(si.email)) = u.email or u.email like '%@users.invalid')
    )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('unconfirmed_login_email').execute();
}

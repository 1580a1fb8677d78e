import { sql, type Kysely } from 'kysely';

// The profile's email consent in a store is now the login email's newsletter subscription there
// (newsletter_subscriber), no longer app_user.newsletter, which is kept as "subscribed anywhere".
// A user whose flag was set with no subscription behind it (demo data, rows written before the
// subscriptions followed the flag) had the consent shown and marketing mails sent in every store,
// and was on no store's newsletter list: each such activated user whose login email is confirmed
// gets a subscription in every store it has a live client account in, consented when it accepted
// the terms (else when it registered), so nothing it was shown or sent is lost. A store where the
// address has a row already (a withdrawal) is left as it is. A user not yet activated keeps the
// flag alone: its verification subscribes it (registration's tick). Set-based, once.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    insert into newsletter_subscriber (email, store_code, language, source, consented_at, created_at, updated_at)
    select distinct u.email, ca.store_code,
      case when u.language in ('et', 'en', 'ru') then u.language else 'et' end,
      'registration', coalesce(u.terms_accepted_at, u.created_at), u.updated_at, u.updated_at
    from app_user u
    join client_account ca on ca.user_id = u.id and ca.status not in ('ERASED', 'REMOVED', 'REJECTED')
    where u.newsletter = ${sql.lit(true)}
      and u.email_verified = ${sql.lit(true)}
      and not exists (select 1 from unconfirmed_login_email ule where ule.user_id = u.id)
      and not exists (select 1 from newsletter_subscriber ns where ns.email = u.email and ns.withdrawn_at is null)
      and not exists (select 1 from newsletter_subscriber ns where ns.email = u.email and ns.store_code = ca.store_code)
  `.execute(db);
}

// The rows cannot be told from ones a later switch wrote: they stay.
export async function down(): Promise<void> {}

import { sql, type Kysely } from 'kysely';

// A client's back-in-stock request is kept at its login email, and a confirmed email change now moves
// it (modules/back-in-stock, moveRequestsToLoginEmail). Changes confirmed before left the old address
// on the request: the scan, which sends one mail per store, product and address, then took it for
// another mailbox than a guest request the person made with the new address (two mails), and the old
// address's next owner could not ask as a guest. This puts them at the login email (trimmed and
// lower-cased, as normaliseEmail writes it). A login email nobody confirmed is its owner's mailbox,
// not the user's: such users' requests are not mailed and are left where they are.

const LOGIN_EMAIL = sql`(select lower(trim(app_user.email)) from client_account
    join app_user on app_user.id = client_account.user_id
    where client_account.id = back_in_stock_request.client_account_id)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    update back_in_stock_request
    set email = ${LOGIN_EMAIL}
    where client_account_id is not null
      and email <> ${LOGIN_EMAIL}
      and not exists (
        select 1 from client_account
        join unconfirmed_login_email on unconfirmed_login_email.user_id = client_account.user_id
        where client_account.id = back_in_stock_request.client_account_id)`.execute(db);
}

/** The old addresses are not kept anywhere: nothing to put back. */
export async function down(): Promise<void> {}

import { sql, type Kysely } from 'kysely';

// A company's invitation link gets a slot of its own, one per invited client account. It shared the
// user's verification slot with the retail registration's link, so whichever was mailed last killed
// the other: a shop registration of the address broke a pending invitation, and the other way round.
// Only the token's SHA-256 is kept, as for every link; the row goes with its account (cascade).
//
// A pending invitation mailed before this migration keeps its link: the verification slot's token
// moves here when the account it activates was an invitation. That is a company account waiting for
// its person, with the names a company gave inviting someone who had a user already
// (company_invitation), or not the company's first account: a registration or a wholesale approval
// makes the company with its account, so any later one of the company came by an invitation.

const INVITATION_LINKS = sql`
  from app_user u
  join client_account a on a.id = u.verification_client_account_id
  where u.verification_token_hash is not null
    and u.verification_expires_at is not null
    and a.user_id = u.id
    and a.company_id is not null
    and a.status = 'PENDING_CONFIRMATION'
    and (
      exists (select 1 from company_invitation i where i.client_account_id = a.id)
      or exists (select 1 from client_account older where older.company_id = a.company_id and older.id < a.id)
    )`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('invitation_token')
    .addColumn('client_account_id', 'bigint', (c) => c.primaryKey().references('client_account.id').onDelete('cascade'))
    .addColumn('token_hash', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await sql`
    insert into invitation_token (client_account_id, token_hash, expires_at, created_at)
    select a.id, u.verification_token_hash, u.verification_expires_at, u.updated_at ${INVITATION_LINKS}`.execute(db);
  await sql`
    update app_user
    set verification_token_hash = null, verification_expires_at = null, verification_client_account_id = null
    where id in (select u.id ${INVITATION_LINKS})`.execute(db);
}

/** A user's newest invitation link, one column of it. */
const newestLink = (column: 'token_hash' | 'expires_at' | 'client_account_id') => sql`(
  select t.${sql.ref(column)} from invitation_token t join client_account a on a.id = t.client_account_id
  where a.user_id = app_user.id order by t.created_at desc, t.client_account_id desc limit 1)`;

/** The links go back to their users' verification slot, the newest of each; a user's own link there since stays. */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    update app_user
    set verification_token_hash = ${newestLink('token_hash')},
        verification_expires_at = ${newestLink('expires_at')},
        verification_client_account_id = ${newestLink('client_account_id')}
    where verification_token_hash is null
      and exists (select 1 from invitation_token t join client_account a on a.id = t.client_account_id where a.user_id = app_user.id)`.execute(
    db,
  );
  await db.schema.dropTable('invitation_token').execute();
}

import { sql, type Kysely } from 'kysely';

// The email marketing consent is per store (a store's newsletter subscription, migration 1060), but
// its history had no store: GET /client-account showed a store the times of a consent given or
// withdrawn in another, and the data export could not say which store's newsletter a consent was
// given to. marketing_consent_event.store_code is the store the consent was given or withdrawn in
// (for EMAIL, whose newsletter it was; SMS and PERSONALISATION are the person's in every store, and
// the store says where they were changed).
//
// The rows there already were written by the profile's switch in some store of the user: those of a
// user with client accounts in one store only were made there and get that store. The others stay
// null, "not known": the profile shows them in no store (since migration 1060 the switch withdrew one
// store's alone, and before it every store's; either way each store's subscription row keeps its own
// consent and withdrawal times, which the profile shows); the export lists them with a null store.
//
// The profile's look-up of the newest event per user, consent, store and answer is one seek of
// marketing_consent_event_store_idx; marketing_consent_event_latest_idx stays for SMS and PERSONALISATION, which are read whatever the
// store. The table is small (a row per toggle): the column is nullable (no rewrite), the update is
// set-based, once.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('marketing_consent_event').addColumn('store_code', 'varchar(16)').execute();
  await sql`
    update marketing_consent_event
    set store_code = (select min(ca.store_code) from client_account ca where ca.user_id = marketing_consent_event.user_id)
    where (select count(distinct ca.store_code) from client_account ca where ca.user_id = marketing_consent_event.user_id) = 1
  `.execute(db);
  await db.schema
    .createIndex('marketing_consent_event_store_idx')
    .on('marketing_consent_event')
    .columns(['user_id', 'consent', 'store_code', 'granted', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('marketing_consent_event_store_idx').execute();
  await db.schema.alterTable('marketing_consent_event').dropColumn('store_code').execute();
}

import type { Insertable, Selectable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { refusedAmong } from '../../infra/mail/refused-addresses.js';
import { lockRowsOnPostgres } from '../../db/row-lock.js';
import { changesExportedPerson, touchExportedAccounts, type AppUserTable } from '../accounts/index.js';
import type { AddressKind, ClientAddressTable, ClientPreferenceTable, MarketingConsent } from './profile.tables.js';

// All of the profile module's SQL. The profile fields are the accounts module's app_user columns
// (registration writes them, the data export reads them): written only through the functions here.

export type AddressRow = Selectable<ClientAddressTable>;
export type PreferenceRow = Selectable<ClientPreferenceTable>;

export function findProfile(db: Db, clientAccountId: number) {
  return db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .select([
      'client_account.code',
      'client_account.store_code',
      'app_user.id as user_id',
      'app_user.email',
      'app_user.password_hash',
      'app_user.first_name',
      'app_user.last_name',
      'app_user.phone',
      'app_user.gender',
      'app_user.birthday',
      'app_user.language',
      'app_user.newsletter',
      'app_user.terms_accepted_at',
      'app_user.created_at',
    ])
    .where('client_account.id', '=', clientAccountId)
    .executeTakeFirst();
}

/**
 * Serialises the changes to a user's profile and consents: the user's row is locked for the
 * transaction on PostgreSQL, so a second request reads what the first wrote.
 */
export async function lockUser(trx: Db, userId: number): Promise<void> {
  await lockRowsOnPostgres(trx, trx.selectFrom('app_user').select('id').where('id', '=', userId));
}

type ProfileColumns = Pick<Updateable<AppUserTable>, 'first_name' | 'last_name' | 'phone' | 'gender' | 'birthday' | 'language'>;

export async function updateProfileColumns(db: Db, userId: number, changes: ProfileColumns, now: number): Promise<void> {
  await db
    .updateTable('app_user')
    .set({ ...changes, updated_at: now })
    .where('id', '=', userId)
    .execute();
  if (changesExportedPerson(changes)) await touchExportedAccounts(db, { userId }, now);
}

/**
 * The newest events the profile shows of the user in the store: of EMAIL, the newest given and the
 * newest withdrawn in the store (a row not attributed to a store, from before migration
 * 2026_12_11_1500, is shown in none: the store's subscription keeps its times); of SMS and
 * PERSONALISATION, the person's in every store, the newest given and withdrawn in any store. At most
 * six rows, one index seek each (marketing_consent_event_store_idx for EMAIL,
 * marketing_consent_event_latest_idx for the others). The history grows with every toggle; the
 * profile shows only when each consent was last given and last withdrawn.
 */
export async function latestConsentEvents(db: Db, userId: number, storeCode: string) {
  const newest = (consent: MarketingConsent, granted: boolean, store?: string) =>
    db
      .selectFrom((eb) => {
        let query = eb
          .selectFrom('marketing_consent_event')
          .select(['id', 'consent', 'granted', 'store_code', 'created_at'])
          .where('user_id', '=', userId)
          .where('consent', '=', consent);
        if (store !== undefined) query = query.where('store_code', '=', store);
        return query.where('granted', '=', granted).orderBy('id', 'desc').limit(1).as('e');
      })
      .selectAll();
  const [first, ...rest] = [
    newest('EMAIL', true, storeCode),
    newest('EMAIL', false, storeCode),
    ...(['SMS', 'PERSONALISATION'] as const).flatMap((consent) => [newest(consent, true), newest(consent, false)]),
  ];
  return rest.reduce((query, next) => query.unionAll(next), first!).execute();
}

// --- login identity -------------------------------------------------------------------------

export function findUserIdByEmail(db: Db, email: string) {
  return db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirst();
}

/** Records (or replaces) the user's pending email change; its token is minted when the mail goes. */
export async function saveEmailChange(db: Db, userId: number, newEmail: string, now: number): Promise<void> {
  await db
    .insertInto('email_change')
    .values({ user_id: userId, new_email: newEmail, token_hash: null, expires_at: null, requested_at: now })
    .onConflict((conflict) =>
      conflict.column('user_id').doUpdateSet({ new_email: newEmail, token_hash: null, expires_at: null, requested_at: now }),
    )
    .execute();
}

export function findEmailChange(db: Db, userId: number) {
  return db.selectFrom('email_change').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** Stores the hash of a freshly minted token, only while the change asked for is still the pending one. */
export async function setEmailChangeToken(db: Db, userId: number, newEmail: string, tokenHash: string, expiresAt: number) {
  const result = await db
    .updateTable('email_change')
    .set({ token_hash: tokenHash, expires_at: expiresAt })
    .where('user_id', '=', userId)
    .where('new_email', '=', newEmail)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export function findEmailChangeByToken(db: Db, tokenHash: string, now: number) {
  return db.selectFrom('email_change').selectAll().where('token_hash', '=', tokenHash).where('expires_at', '>', now).executeTakeFirst();
}

/** Removes the pending change, only if it is still the one with this token: false when another request took it. */
export async function consumeEmailChange(db: Db, userId: number, tokenHash: string): Promise<boolean> {
  const result = await db.deleteFrom('email_change').where('user_id', '=', userId).where('token_hash', '=', tokenHash).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/**
 * The new login email. The reset, verification and invitation links mailed to the old address stop
 * working with it: each sets the password and logs in (a verification or invitation link waits 7
 * days, for an account a company or a registration form attached), and the old mailbox is no longer
 * the person's proof. An account such a link was to confirm waits for a new one, mailed to the new
 * address (a business registration sent again; a company removes and invites the person again).
 */
export async function setLoginEmail(db: Db, userId: number, email: string, now: number): Promise<void> {
  await db
    .updateTable('app_user')
    .set({
      email,
      reset_token_hash: null,
      reset_expires_at: null,
      verification_token_hash: null,
      verification_expires_at: null,
      verification_client_account_id: null,
      updated_at: now,
    })
    .where('id', '=', userId)
    .execute();
  await db
    .deleteFrom('invitation_token')
    .where('client_account_id', 'in', (eb) => eb.selectFrom('client_account').select('id').where('user_id', '=', userId))
    .execute();
}

/**
 * Replaces the password hash only while it is still the one the current password was checked
 * against; false when another change committed since (two changes at once: the second is refused
 * as a wrong current password, as it would be one after the other).
 */
export async function replacePasswordHash(
  db: Db,
  userId: number,
  checked: string | null,
  passwordHash: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('app_user')
    .set({ password_hash: passwordHash, updated_at: now })
    .where('id', '=', userId)
    .where((eb) => (checked === null ? eb('password_hash', 'is', null) : eb('password_hash', '=', checked)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Ends every session of the user but the one presented. */
export async function revokeOtherTokens(db: Db, userId: number, keptTokenHash: string): Promise<void> {
  await db.deleteFrom('access_token').where('user_id', '=', userId).where('token_hash', '!=', keptTokenHash).execute();
}

// --- addresses --------------------------------------------------------------------------------

export function addressesOf(db: Db, clientAccountId: number): Promise<AddressRow[]> {
  return db
    .selectFrom('client_address')
    .selectAll()
    .where('client_account_id', '=', clientAccountId)
    .orderBy('kind', 'desc')
    .orderBy('id')
    .execute();
}

export function findAddress(db: Db, clientAccountId: number, id: number): Promise<AddressRow | undefined> {
  return db
    .selectFrom('client_address')
    .selectAll()
    .where('id', '=', id)
    .where('client_account_id', '=', clientAccountId)
    .executeTakeFirst();
}

export async function countAddresses(db: Db, clientAccountId: number): Promise<number> {
  const row = await db
    .selectFrom('client_address')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('client_account_id', '=', clientAccountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The client's default of this kind stops being one (before another becomes it, in the same transaction). */
export async function clearDefault(db: Db, clientAccountId: number, kind: AddressKind): Promise<void> {
  await db
    .updateTable('client_address')
    .set({ default_for: null })
    .where('client_account_id', '=', clientAccountId)
    .where('default_for', '=', kind)
    .execute();
}

/**
 * The client's newest address saved after `after` with exactly these values and default state:
 * the one a submit of the same form made moments ago.
 */
export async function findSameAddress(
  db: Db,
  clientAccountId: number,
  values: Pick<AddressRow, 'kind' | 'name' | 'phone' | 'address' | 'city' | 'postcode' | 'country_code'>,
  isDefault: boolean,
  after: number,
): Promise<AddressRow | undefined> {
  let query = db
    .selectFrom('client_address')
    .selectAll()
    .where('client_account_id', '=', clientAccountId)
    .where('created_at', '>', after)
    .where('kind', '=', values.kind)
    .where('name', '=', values.name)
    .where('phone', '=', values.phone)
    .where('address', '=', values.address)
    .where('city', '=', values.city)
    .where('postcode', '=', values.postcode)
    .where('country_code', '=', values.country_code);
  query = isDefault ? query.where('default_for', '=', values.kind) : query.where('default_for', 'is', null);
  return query.orderBy('id', 'desc').limit(1).executeTakeFirst();
}

export async function insertAddress(db: Db, address: Insertable<ClientAddressTable>): Promise<number> {
  const row = await db.insertInto('client_address').values(address).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateAddress(
  db: Db,
  clientAccountId: number,
  id: number,
  changes: Omit<Updateable<ClientAddressTable>, 'id' | 'client_account_id' | 'created_at'>,
): Promise<void> {
  await db.updateTable('client_address').set(changes).where('id', '=', id).where('client_account_id', '=', clientAccountId).execute();
}

export async function deleteAddress(db: Db, clientAccountId: number, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('client_address')
    .where('id', '=', id)
    .where('client_account_id', '=', clientAccountId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

// --- preferences ------------------------------------------------------------------------------

export function findPreferences(db: Db, clientAccountId: number): Promise<PreferenceRow | undefined> {
  return db.selectFrom('client_preference').selectAll().where('client_account_id', '=', clientAccountId).executeTakeFirst();
}

export async function savePreferences(db: Db, row: Insertable<ClientPreferenceTable>): Promise<void> {
  const { client_account_id: _id, ...changes } = row;
  await db
    .insertInto('client_preference')
    .values(row)
    .onConflict((conflict) => conflict.column('client_account_id').doUpdateSet(changes))
    .execute();
}

/** Categories of the store by code or id (the catalogue's table), with their name in `language` when it has one. */
export function categoriesOfStore(db: Db, storeCode: string, refs: { codes: string[]; ids: number[] }, language: string) {
  return db
    .selectFrom('category')
    .leftJoin('category_name', (join) =>
      join.onRef('category_name.category_id', '=', 'category.id').on('category_name.language', '=', language),
    )
    .select(['category.id', 'category.code', 'category_name.name'])
    .where('category.store_code', '=', storeCode)
    .where((eb) =>
      eb.or([
        ...(refs.codes.length > 0 ? [eb('category.code', 'in', refs.codes)] : []),
        ...(refs.ids.length > 0 ? [eb('category.id', 'in', refs.ids)] : []),
      ]),
    )
    .execute();
}

/** The categories the client follows, in the order chosen (as the data export lists them). */
export function followedCategories(db: Db, clientAccountId: number, language: string) {
  return db
    .selectFrom('client_category_preference')
    .innerJoin('category', 'category.id', 'client_category_preference.category_id')
    .leftJoin('category_name', (join) =>
      join.onRef('category_name.category_id', '=', 'category.id').on('category_name.language', '=', language),
    )
    .select(['category.id', 'category.code', 'category_name.name'])
    .where('client_category_preference.client_account_id', '=', clientAccountId)
    .orderBy('client_category_preference.created_at')
    .orderBy('category.code')
    .execute();
}

/** Replaces the followed set: ones no longer listed go, new ones come with `now`; kept ones keep their time. */
export async function replaceFollowedCategories(db: Db, clientAccountId: number, categoryIds: number[], now: number): Promise<void> {
  let removal = db.deleteFrom('client_category_preference').where('client_account_id', '=', clientAccountId);
  if (categoryIds.length > 0) removal = removal.where('category_id', 'not in', categoryIds);
  const removed = await removal.executeTakeFirst();
  const added =
    categoryIds.length === 0
      ? []
      : await db
          .insertInto('client_category_preference')
          .values(categoryIds.map((categoryId) => ({ client_account_id: clientAccountId, category_id: categoryId, created_at: now })))
          .onConflict((conflict) => conflict.columns(['client_account_id', 'category_id']).doNothing())
          .returning('category_id')
          .execute();
  // The data export's item of the account lists the categories: a changed set is a changed item.
  if (Number(removed.numDeletedRows) > 0 || added.length > 0) await touchExportedAccounts(db, { accountIds: [clientAccountId] }, now);
}

export function findProfileUser(db: Db, userId: number) {
  return db.selectFrom('app_user').select(['id', 'email', 'first_name']).where('id', '=', userId).executeTakeFirst();
}

// --- whether the login email is confirmed ---------------------------------------------------

/** Marks the user's login email as not confirmed (a social sign-up the provider did not vouch for). */
export async function markLoginEmailUnconfirmed(db: Db, userId: number, now: number): Promise<void> {
  await db
    .insertInto('unconfirmed_login_email')
    .values({ user_id: userId, since: now })
    .onConflict((conflict) => conflict.column('user_id').doNothing())
    .execute();
}

/** The user's login email is confirmed (by the link mailed to it, or by a provider that verified it). */
export async function markLoginEmailConfirmed(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('unconfirmed_login_email').where('user_id', '=', userId).execute();
}

/** Confirms the login email only while it is `email` (normalised): a provider vouched for that address, not another. */
export async function markLoginEmailConfirmedIf(db: Db, userId: number, email: string): Promise<void> {
  await db
    .deleteFrom('unconfirmed_login_email')
    .where('user_id', '=', userId)
    .where((eb) =>
      eb.exists(eb.selectFrom('app_user').select('app_user.id').where('app_user.id', '=', userId).where('app_user.email', '=', email)),
    )
    .execute();
}

/** Whether the user's login email is confirmed: no row says otherwise. */
export async function isLoginEmailConfirmed(db: Db, userId: number): Promise<boolean> {
  const row = await db.selectFrom('unconfirmed_login_email').select('user_id').where('user_id', '=', userId).executeTakeFirst();
  return row === undefined;
}

/**
 * The client account's login email (normalised) while its user has confirmed it; null while the user
 * has not (what the shop keeps under that address is its owner's, not this user's) or for an unknown
 * account. For other modules that hand a client what was sent to its address (gift cards).
 */
export async function confirmedLoginEmailOf(db: Db, clientAccountId: number): Promise<string | null> {
  const account = await db
    .selectFrom('client_account')
    .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
    .leftJoin('unconfirmed_login_email', 'unconfirmed_login_email.user_id', 'app_user.id')
    .select(['app_user.email', 'unconfirmed_login_email.user_id as unconfirmed'])
    .where('client_account.id', '=', clientAccountId)
    .executeTakeFirst();
  return account && account.unconfirmed === null ? normaliseEmail(account.email) : null;
}

// --- who is mailed wishlist offers -------------------------------------------------------------

/** A client account that may be mailed its wishlist offers now, and where and how. */
export interface OfferRecipient {
  clientAccountId: number;
  storeCode: string;
  /** The login email, normalised (confirmed: see offerRecipients). */
  email: string;
  /** The account's language (app_user.language), as stored. */
  language: string;
}

/**
 * The accounts that may be mailed wishlist offers: the preference row's `wishlistOffers` and email
 * channel on (no row: the defaults, DEFAULT_NOTIFICATIONS in profile.service.ts, where it is off),
 * the account ACTIVE (not removed, erased or waiting), and the EMAIL marketing consent given as
 * readProfile tells it: the login email confirmed (no unconfirmed_login_email row) and subscribed to
 * the newsletter of the account's store (newsletter_subscriber, by its email and store key; the
 * user's newsletter flag, subscribed anywhere, narrows first). The callers then drop an address its
 * server refused (reachable).
 */
function offerRecipients(db: Db) {
  return db
    .selectFrom('client_preference as cp')
    .innerJoin('client_account as ca', 'ca.id', 'cp.client_account_id')
    .innerJoin('app_user as u', 'u.id', 'ca.user_id')
    .leftJoin('unconfirmed_login_email as ule', 'ule.user_id', 'u.id')
    .select(['cp.client_account_id', 'ca.store_code', 'u.email', 'u.language'])
    .where('cp.wishlist_offers', '=', true)
    .where('cp.email_channel', '=', true)
    .where('ca.status', '=', 'ACTIVE')
    .where('u.newsletter', '=', true)
    .where('ule.user_id', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('newsletter_subscriber as ns')
          .select('ns.id')
          .whereRef('ns.email', '=', 'u.email')
          .whereRef('ns.store_code', '=', 'ca.store_code')
          .where('ns.withdrawn_at', 'is', null),
      ),
    );
}

const toRecipient = (row: { client_account_id: number; store_code: string; email: string; language: string }): OfferRecipient => ({
  clientAccountId: Number(row.client_account_id),
  storeCode: row.store_code,
  email: normaliseEmail(row.email),
  language: row.language,
});

/**
 * A page of the accounts that may be mailed wishlist offers: of the next `limit` accounts after
 * `afterClientAccountId` (in account order) that turned the mails on, those that may be mailed now.
 * The page is taken from client_preference_wishlist_offers_idx alone, so the accounts that did not
 * turn them on are never read, and the rest is looked up by keys; `next` is where the next page
 * starts, null after the last.
 */
export async function wishlistOfferRecipients(
  db: Db,
  afterClientAccountId: number,
  limit: number,
): Promise<{ recipients: OfferRecipient[]; next: number | null }> {
  const page = await db
    .selectFrom('client_preference')
    .select('client_account_id')
    .where('wishlist_offers', '=', true)
    .where('client_account_id', '>', afterClientAccountId)
    .orderBy('wishlist_offers')
    .orderBy('client_account_id')
    .limit(limit)
    .execute();
  if (page.length === 0) return { recipients: [], next: null };
  const ids = page.map((row) => Number(row.client_account_id));
  const rows = await offerRecipients(db).where('cp.client_account_id', 'in', ids).orderBy('cp.client_account_id').execute();
  return { recipients: await reachable(db, rows.map(toRecipient)), next: page.length < limit ? null : ids.at(-1)! };
}

/** The account if it may be mailed wishlist offers now (offerRecipients), else undefined: asked again when a mail is sent. */
export async function wishlistOfferRecipient(db: Db, clientAccountId: number): Promise<OfferRecipient | undefined> {
  const row = await offerRecipients(db).where('cp.client_account_id', '=', clientAccountId).executeTakeFirst();
  return row && (await reachable(db, [toRecipient(row)]))[0];
}

/** Without those whose address its mail server said does not exist (infra/mail/refused-addresses.ts). */
async function reachable(db: Db, recipients: OfferRecipient[]): Promise<OfferRecipient[]> {
  const refused = await refusedAmong(
    db,
    recipients.map((recipient) => recipient.email),
  );
  return refused.size === 0 ? recipients : recipients.filter((recipient) => !refused.has(recipient.email));
}

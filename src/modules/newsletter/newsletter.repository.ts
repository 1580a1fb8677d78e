import type { Selectable } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { NewsletterRequestTable, NewsletterSubscriberTable } from './newsletter.tables.js';

export type NewsletterRequestRow = Selectable<NewsletterRequestTable>;
export type SubscriberRow = Selectable<NewsletterSubscriberTable>;

export async function insertRequest(
  db: Db,
  request: { email: string; storeCode: string; language: string; source: string },
  now: number,
): Promise<number> {
  const row = await db
    .insertInto('newsletter_request')
    .values({
      email: request.email,
      store_code: request.storeCode,
      language: request.language,
      source: request.source,
      token_hash: null,
      expires_at: null,
      confirmed_at: null,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export function findRequest(db: Db, id: number): Promise<NewsletterRequestRow | undefined> {
  return db.selectFrom('newsletter_request').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Stores the hash of a freshly minted token, only while the request is still as the worker read it:
 * not confirmed, its expiry unchanged. An unsubscribe cancels it by setting the expiry to its own
 * time, which can be later than the worker's clock, so the expiry read is compared, not a time.
 * False when the request changed since (nothing may be mailed for it).
 */
export async function setRequestToken(
  db: Db,
  request: { id: number; expiresAtRead: number | null },
  tokenHash: string,
  expiresAt: number,
): Promise<boolean> {
  const result = await db
    .updateTable('newsletter_request')
    .set({ token_hash: tokenHash, expires_at: expiresAt })
    .where('id', '=', request.id)
    .where('confirmed_at', 'is', null)
    .where((eb) => (request.expiresAtRead === null ? eb('expires_at', 'is', null) : eb('expires_at', '=', request.expiresAtRead)))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The request a token was minted for, followed or not, while its link lasts. */
export function findLiveRequestByToken(db: Db, tokenHash: string, now: number): Promise<NewsletterRequestRow | undefined> {
  return db
    .selectFrom('newsletter_request')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Marks a request used; false when another confirmation took it first. */
export async function markRequestConfirmed(db: Db, id: number, now: number): Promise<boolean> {
  const result = await db
    .updateTable('newsletter_request')
    .set({ confirmed_at: now })
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends the links of every request of `email` in a store not yet followed (an unsubscribe cancels them). */
export async function expirePendingRequests(db: Db, email: string, storeCode: string, now: number): Promise<void> {
  await db
    .updateTable('newsletter_request')
    .set({ expires_at: now })
    .where('email', '=', email)
    .where('store_code', '=', storeCode)
    .where('confirmed_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
}

export function findCurrentSubscriber(db: Db, email: string, storeCode: string): Promise<SubscriberRow | undefined> {
  return db
    .selectFrom('newsletter_subscriber')
    .selectAll()
    .where('email', '=', email)
    .where('store_code', '=', storeCode)
    .where('withdrawn_at', 'is', null)
    .executeTakeFirst();
}

/** The address's row in the store, current or withdrawn (one per address and store: newsletter_subscriber_email_store). */
export function findSubscriber(db: Db, email: string, storeCode: string): Promise<SubscriberRow | undefined> {
  return db
    .selectFrom('newsletter_subscriber')
    .selectAll()
    .where('email', '=', email)
    .where('store_code', '=', storeCode)
    .executeTakeFirst();
}

/** Sets the language of the address's current subscription in the store (none: nothing changes). */
export async function setSubscriberLanguage(
  db: Db,
  subscriber: { email: string; storeCode: string; language: string },
  now: number,
): Promise<void> {
  await db
    .updateTable('newsletter_subscriber')
    .set({ language: subscriber.language, updated_at: now })
    .where('email', '=', subscriber.email)
    .where('store_code', '=', subscriber.storeCode)
    .where('withdrawn_at', 'is', null)
    .execute();
}

/** Records a confirmed consent: a new subscriber, or one that withdrew (or changes language) subscribing again. */
export async function upsertSubscriber(
  db: Db,
  subscriber: { email: string; storeCode: string; language: string; source: string },
  now: number,
): Promise<void> {
  await db
    .insertInto('newsletter_subscriber')
    .values({
      email: subscriber.email,
      store_code: subscriber.storeCode,
      language: subscriber.language,
      source: subscriber.source,
      consented_at: now,
      withdrawn_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['email', 'store_code']).doUpdateSet({
        language: subscriber.language,
        source: subscriber.source,
        consented_at: now,
        withdrawn_at: null,
        updated_at: now,
      }),
    )
    .execute();
}

/** The address's current subscriptions, one per store. */
export function currentSubscriptionsOf(db: Db, email: string): Promise<SubscriberRow[]> {
  return db
    .selectFrom('newsletter_subscriber')
    .selectAll()
    .where('email', '=', email)
    .where('withdrawn_at', 'is', null)
    .orderBy('store_code')
    .execute();
}

/**
 * Gives the address a subscription carried over from another address of the same person (its consent
 * time, language and source kept). One row per address and store: a row of the address that is
 * subscribed already keeps the earlier of the two consent times; a withdrawn one is subscribed again
 * with the carried consent.
 */
export async function carrySubscriber(
  db: Db,
  subscriber: { email: string; storeCode: string; language: string; source: string; consentedAt: number },
  now: number,
): Promise<void> {
  await db
    .insertInto('newsletter_subscriber')
    .values({
      email: subscriber.email,
      store_code: subscriber.storeCode,
      language: subscriber.language,
      source: subscriber.source,
      consented_at: subscriber.consentedAt,
      withdrawn_at: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['email', 'store_code']).doUpdateSet((eb) => ({
        language: subscriber.language,
        source: subscriber.source,
        consented_at: eb
          .case()
          .when(
            eb.and([
              eb('newsletter_subscriber.withdrawn_at', 'is', null),
              eb('newsletter_subscriber.consented_at', '<', subscriber.consentedAt),
            ]),
          )
          .then(eb.ref('newsletter_subscriber.consented_at'))
          .else(subscriber.consentedAt)
          .end(),
        withdrawn_at: null,
        updated_at: now,
      })),
    )
    .execute();
}

/** Marks the withdrawal time; false when the address was not subscribed in that store. */
export async function withdrawSubscriber(db: Db, email: string, storeCode: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable('newsletter_subscriber')
    .set({ withdrawn_at: now, updated_at: now })
    .where('email', '=', email)
    .where('store_code', '=', storeCode)
    .where('withdrawn_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Deletes everything kept under the address: its requests, then its subscriptions (the order every
 * writer takes them in, newsletter.service.ts). For an erasure, and for a login email the person
 * has moved away from.
 */
export async function deleteAddressRows(db: Db, email: string): Promise<void> {
  await db.deleteFrom('newsletter_request').where('email', '=', email).execute();
  await db.deleteFrom('newsletter_subscriber').where('email', '=', email).execute();
}

/** The user whose login email the address is (the accounts module's table, as the flag below). */
export async function findUserIdByEmail(db: Db, email: string): Promise<number | undefined> {
  const user = await db.selectFrom('app_user').select('id').where('email', '=', email).executeTakeFirst();
  return user && Number(user.id);
}

/** A consent the person's history records: EMAIL (this module's), SMS, PERSONALISATION (the profile's switch). */
export type MarketingConsentKind = Database['marketing_consent_event']['consent'];

/** How a consent recorded in the person's history was given or withdrawn. */
export type ConsentHistorySource = 'PROFILE' | 'REGISTRATION' | 'CONFIRMATION_LINK' | 'UNSUBSCRIBE_LINK';

/** One change of a user's marketing consent in a store. */
export interface ConsentHistoryEvent {
  userId: number;
  consent: MarketingConsentKind;
  granted: boolean;
  storeCode: string;
  source: ConsentHistorySource;
}

/**
 * The one writer of the person's consent history (marketing_consent_event, modules/profile's table,
 * as the flag below is the accounts module's): the EMAIL consent's changes the newsletter records
 * (newsletter.events.ts) and the profile's switch of SMS and PERSONALISATION (through index.ts:
 * profile calls newsletter, so the writer is here).
 */
export async function insertConsentEvent(db: Db, event: ConsentHistoryEvent, now: number): Promise<void> {
  await db
    .insertInto('marketing_consent_event')
    .values({
      user_id: event.userId,
      consent: event.consent,
      granted: event.granted,
      store_code: event.storeCode,
      source: event.source,
      created_at: now,
    })
    .execute();
}

/**
 * Keeps the account's `newsletter` flag (app_user, the accounts module's) in step with the
 * subscriptions of the same address: true while it is subscribed in any store. Not while the user
 * has not verified its registration: its flag is the registration's tick until then, which the
 * verification turns into the subscription of the store registered in (another store's form
 * subscribing the address meanwhile is not that store's consent); the verification syncs it then.
 */
export async function syncUserNewsletterFlag(db: Db, email: string, now: number): Promise<void> {
  const subscribed = await db
    .selectFrom('newsletter_subscriber')
    .select('id')
    .where('email', '=', email)
    .where('withdrawn_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  await db
    .updateTable('app_user')
    .set({ newsletter: subscribed !== undefined, updated_at: now })
    .where('email', '=', email)
    .where('email_verified', '=', true)
    .execute();
}

/** One page of current subscribers after `afterId`, by id (the export pages by it, never reading the whole table). */
export function currentSubscribersPage(db: Db, afterId: number, limit: number, storeCode?: string): Promise<SubscriberRow[]> {
  let query = db.selectFrom('newsletter_subscriber').selectAll().where('withdrawn_at', 'is', null).where('id', '>', afterId);
  if (storeCode !== undefined) query = query.where('store_code', '=', storeCode);
  return query.orderBy('id').limit(limit).execute();
}

/** Deletes requests made before `before` whose links no longer work; the consent is on the subscriber. */
export async function pruneRequests(db: Db, before: number, now: number): Promise<number> {
  return deleteInBatches(db, 'newsletter_request', {
    key: 'id',
    where: (eb) =>
      eb.and([
        eb('created_at', '<', before),
        eb.or([eb('expires_at', 'is', null), eb('expires_at', '<', now), eb('confirmed_at', 'is not', null)]),
      ]),
    orderBy: 'created_at',
  });
}

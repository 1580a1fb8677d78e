import type { Db } from '../../db/database.js';
import { lockAccountsForErasure, lockLiveClientAccount } from '../client-account-lock/index.js';
import { invalidField, InvalidInputError, type InvalidField } from '../../infra/domain-error.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { refusedAmong } from '../../infra/mail/refused-addresses.js';
import { checkBirthday } from '../accounts/index.js';
import {
  insertConsentEvent,
  newsletterConsentTimes,
  setConfirmedAddressConsent,
  setSubscribedLanguage,
  subscribedLanguage,
} from '../newsletter/index.js';
import { customerStream, emitEvent } from '../events/index.js';
import {
  categoriesOfStore,
  confirmedLoginEmailOf,
  findPreferences,
  findProfile,
  followedCategories,
  isLoginEmailConfirmed,
  latestConsentEvents,
  lockUser,
  replaceFollowedCategories,
  savePreferences,
  updateProfileColumns,
} from './profile.repository.js';
import type { ClientAccountUpdate, Preferences, PreferencesUpdate } from './profile.schemas.js';
import type { MarketingConsent } from './profile.tables.js';

// The client account's profile, notification preferences and followed categories. Services take
// the transaction, the caller (from its bearer token), the input and the action time.

/** Who calls: the bearer token's user and client account in the request's store. */
export interface ProfileActor {
  userId: number;
  clientAccountId: number;
  storeCode: string;
  tokenHash: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const CONSENTS: Record<'email' | 'sms' | 'personalisation', MarketingConsent> = {
  email: 'EMAIL',
  sms: 'SMS',
  personalisation: 'PERSONALISATION',
};
const GENDERS = new Set(['MALE', 'FEMALE', 'OTHER']);

async function profileOf(db: Db, actor: Pick<ProfileActor, 'clientAccountId'>) {
  const profile = await findProfile(db, actor.clientAccountId);
  // The token's account exists (authentication joined it); a row gone since is a deleted account.
  if (!profile) throw new Error(`client account ${actor.clientAccountId} vanished`);
  return profile;
}

/** A client's channels and notification switches until it saves its preferences. */
const DEFAULT_CHANNELS: Preferences['channels'] = { email: true, sms: false };
const DEFAULT_NOTIFICATIONS: Preferences['notifications'] = { orderUpdates: true, backInStock: true, wishlistOffers: false };

/**
 * The EMAIL marketing consent in a store: the confirmed login email's newsletter subscription there
 * (modules/newsletter keeps them per store). Not app_user.newsletter, which is true while the address
 * is subscribed in any store: a shopper subscribed in WEB saw WEB2's switch on, though WEB2's
 * newsletter did not come, and could not turn it on (the switch was on already). While the login
 * email is not confirmed, the address's subscriptions are its owner's, not this user's.
 */
async function emailMarketingConsent(db: Db, email: string, storeCode: string, emailConfirmed: boolean): Promise<boolean> {
  return emailConfirmed && (await subscribedLanguage(db, email, storeCode)) !== undefined;
}

/**
 * The client's login email (normalised) while a marketing mail may be sent to it, else null: the
 * client has the EMAIL marketing consent (which needs the login email confirmed, readProfile) and the
 * email channel on in their preferences (the defaults without a saved row). For the marketing mails
 * of other modules (the basket's reminder), which the worker hands this; the account's status is
 * theirs to check.
 */
export async function marketingEmailOf(db: Db, clientAccountId: number): Promise<string | null> {
  const profile = await findProfile(db, clientAccountId);
  if (!profile) return null;
  // The newsletter flag (subscribed anywhere) first: most clients have none, and it is on the row read already.
  if (!profile.newsletter) return null;
  const confirmed = await isLoginEmailConfirmed(db, profile.user_id);
  if (!(await emailMarketingConsent(db, profile.email, profile.store_code, confirmed))) return null;
  // The saved row alone: without one the channel is on (DEFAULT_CHANNELS), and the profile is read already.
  const saved = await findPreferences(db, clientAccountId);
  if (!(saved === undefined ? DEFAULT_CHANNELS.email : Boolean(saved.email_channel))) return null;
  const email = normaliseEmail(profile.email);
  // An address its mail server said does not exist gets no marketing mail (infra/mail/refused-addresses.ts).
  return (await refusedAmong(db, [email])).size > 0 ? null : email;
}

export async function readProfile(db: Db, actor: ProfileActor) {
  const profile = await profileOf(db, actor);
  const latest = await latestConsentEvents(db, profile.user_id, actor.storeCode);
  const emailConfirmed = await isLoginEmailConfirmed(db, profile.user_id);
  const newsletter = await emailMarketingConsent(db, profile.email, actor.storeCode, emailConfirmed);
  // The email consent is the store's subscription: the newsletter records its changes (the switch's,
  // its links', a registration's) in the history with the store, and keeps the last consent and
  // withdrawal times on the subscription, which may predate the address being this user's (a
  // subscribe form's link followed before it was the login): the times of both count.
  const links = emailConfirmed ? await newsletterConsentTimes(db, profile.email, actor.storeCode) : { givenAt: null, withdrawnAt: null };
  const later = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));
  const state = (consent: MarketingConsent) => {
    // Of EMAIL the store's own (latestConsentEvents); of SMS and PERSONALISATION the person's, wherever given.
    const given = latest.find((event) => event.consent === consent && Boolean(event.granted));
    const withdrawn = latest.find((event) => event.consent === consent && !event.granted);
    // A subscription with no time of its own to show (none before its link or switch): given with the terms.
    const registered = consent === 'EMAIL' && newsletter ? (profile.terms_accepted_at ?? profile.created_at) : null;
    const fromLinks = consent === 'EMAIL' ? links : { givenAt: null, withdrawnAt: null };
    const givenAt = later(given ? Number(given.created_at) : null, fromLinks.givenAt) ?? registered;
    const withdrawnAt = later(withdrawn ? Number(withdrawn.created_at) : null, fromLinks.withdrawnAt);
    // The newer of the two is the consent's state; the email consent is the store's subscription.
    const granted =
      consent === 'EMAIL' ? newsletter : given !== undefined && (withdrawn === undefined || Number(given.id) > Number(withdrawn.id));
    return {
      granted,
      givenAt: givenAt === null ? null : iso(Number(givenAt)),
      withdrawnAt: withdrawnAt === null ? null : iso(withdrawnAt),
    };
  };
  return {
    clientCode: profile.code,
    email: profile.email,
    emailConfirmed,
    firstName: profile.first_name,
    lastName: profile.last_name,
    phone: profile.phone,
    gender: profile.gender !== null && GENDERS.has(profile.gender) ? (profile.gender as 'MALE' | 'FEMALE' | 'OTHER') : null,
    birthday: profile.birthday,
    language: isLanguage(profile.language) ? profile.language : ('et' as Language),
    marketingConsents: { email: state('EMAIL'), sms: state('SMS'), personalisation: state('PERSONALISATION') },
  };
}

/** Changes the given fields; a consent that changes is recorded with the action time. */
export async function updateProfile(trx: Db, actor: ProfileActor, input: ClientAccountUpdate, now: number) {
  checkBirthday(input.birthday, now);
  // A double submit: the second waits and finds the consent changed already, so it is recorded once.
  // The erasure's locks of the person first (their companies, then all their accounts in id order):
  // a change committed after an erasure would put the names back on the erased user. All of the
  // accounts, not only the caller's: the change stamps every one of them for the data export
  // (touchExportedAccounts), and holding the newer while waiting for the older deadlocked with an
  // erasure, a registration or an import line of the same person, which take them in id order.
  await lockAccountsForErasure(trx, actor.userId);
  await lockLiveClientAccount(trx, actor.clientAccountId);
  await lockUser(trx, actor.userId);
  const before = await readProfile(trx, actor);
  const emailConsent = input.marketingConsents?.email;
  // The newsletter is subscribed or left here without the double opt-in's mail, as the login email
  // is taken as confirmed: an address that is not would subscribe (or unsubscribe) its owner.
  if (emailConsent !== undefined && emailConsent !== before.marketingConsents.email.granted && !before.emailConfirmed)
    throw invalidField('marketingConsents.email', 'profile.emailUnconfirmed');
  await updateProfileColumns(
    trx,
    actor.userId,
    {
      first_name: input.firstName,
      last_name: input.lastName,
      phone: input.phone,
      gender: input.gender,
      birthday: input.birthday,
      language: input.language,
    },
    now,
  );
  if (emailConsent !== undefined && emailConsent !== before.marketingConsents.email.granted) {
    const preferences = await readPreferences(trx, actor);
    await setConfirmedAddressConsent(
      trx,
      {
        email: before.email,
        storeCode: actor.storeCode,
        language: preferences.newsletterLanguage,
        source: 'profile',
        wanted: emailConsent,
      },
      now,
    );
  }
  // The email consent's change is recorded by the newsletter (above), in the history with the store
  // as its links' are; SMS and PERSONALISATION are the person's, recorded here (through the newsletter's
  // writer of the history) with the store they were changed in.
  for (const [name, consent] of Object.entries(CONSENTS) as Array<[keyof typeof CONSENTS, MarketingConsent]>) {
    const wanted = input.marketingConsents?.[name];
    if (consent === 'EMAIL' || wanted === undefined || wanted === before.marketingConsents[name].granted) continue;
    await insertConsentEvent(trx, { userId: actor.userId, consent, granted: wanted, storeCode: actor.storeCode, source: 'PROFILE' }, now);
    const data = {
      customerId: actor.userId,
      email: before.email,
      channel: consent,
      store: actor.storeCode,
      granted: wanted,
      source: 'profile',
    };
    await emitEvent(trx, { type: 'consent.changed', stream: customerStream(actor.userId), data }, now);
  }
  // The same form again (a double click, a retry) changes nothing the platform is told of: no event.
  return emitCustomerUpdated(trx, actor, now, before);
}

function customerData(actor: ProfileActor, profile: Awaited<ReturnType<typeof readProfile>>) {
  return {
    customerId: actor.userId,
    email: profile.email,
    firstName: profile.firstName,
    lastName: profile.lastName,
    phone: profile.phone,
    language: profile.language,
    birthday: profile.birthday,
  };
}

/**
 * `customer.updated` for the marketing platform, with the profile as it is now: after a profile
 * edit and after a confirmed change of the login email; not when what it tells is what it was
 * `before` the edit. Answers that profile.
 */
export async function emitCustomerUpdated(trx: Db, actor: ProfileActor, now: number, before?: Awaited<ReturnType<typeof readProfile>>) {
  const after = await readProfile(trx, actor);
  const data = customerData(actor, after);
  if (before !== undefined && JSON.stringify(customerData(actor, before)) === JSON.stringify(data)) return after;
  await emitEvent(trx, { type: 'customer.updated', stream: customerStream(actor.userId), data }, now);
  return after;
}

/** Whether the client wants the order mails that are news, not receipts (a pickup's reminder). */
export async function wantsOrderUpdateMails(db: Db, clientAccountId: number): Promise<boolean> {
  const row = await findPreferences(db, clientAccountId);
  return row === undefined ? DEFAULT_NOTIFICATIONS.orderUpdates : Boolean(row.order_updates);
}

/**
 * Whether the client wants back-in-stock mails (its `notifications.backInStock`): back-in-stock's
 * routes refuse a request while it is off and its mail job tells no request of the client's then.
 * Reads the preference row alone, so an account erased since (its row deleted) answers the default.
 */
export async function wantsBackInStockMails(db: Db, clientAccountId: number): Promise<boolean> {
  const row = await findPreferences(db, clientAccountId);
  return row === undefined ? DEFAULT_NOTIFICATIONS.backInStock : Boolean(row.back_in_stock);
}

/**
 * The client's preferences. Given the store, `newsletterLanguage` is the language of its confirmed
 * login email's subscription there while it has one (set by the subscribe form's link too), so the
 * preference shows the language the newsletter goes out in.
 */
export async function readPreferences(
  db: Db,
  actor: Pick<ProfileActor, 'clientAccountId'> & Partial<Pick<ProfileActor, 'storeCode'>>,
): Promise<Preferences> {
  const saved = await savedPreferences(db, actor);
  if (actor.storeCode === undefined) return saved;
  const email = await confirmedLoginEmailOf(db, actor.clientAccountId);
  const subscribed = email === null ? undefined : await subscribedLanguage(db, email, actor.storeCode);
  return subscribed !== undefined && isLanguage(subscribed) ? { ...saved, newsletterLanguage: subscribed } : saved;
}

/** A client's saved preferences; without a saved row the defaults: mail in the user's language, service notifications on. */
async function savedPreferences(db: Db, actor: Pick<ProfileActor, 'clientAccountId'>): Promise<Preferences> {
  const row = await findPreferences(db, actor.clientAccountId);
  if (!row) {
    const profile = await profileOf(db, actor);
    return {
      newsletterLanguage: isLanguage(profile.language) ? profile.language : 'et',
      channels: { ...DEFAULT_CHANNELS },
      notifications: { ...DEFAULT_NOTIFICATIONS },
    };
  }
  return {
    newsletterLanguage: isLanguage(row.newsletter_language) ? row.newsletter_language : 'et',
    channels: { email: Boolean(row.email_channel), sms: Boolean(row.sms_channel) },
    notifications: {
      orderUpdates: Boolean(row.order_updates),
      backInStock: Boolean(row.back_in_stock),
      wishlistOffers: Boolean(row.wishlist_offers),
    },
  };
}

export async function updatePreferences(trx: Db, actor: ProfileActor, input: PreferencesUpdate, now: number): Promise<Preferences> {
  // Two partial updates at once: the second merges into what the first saved, and neither is lost.
  await lockLiveClientAccount(trx, actor.clientAccountId);
  const current = await readPreferences(trx, actor);
  const next: Preferences = {
    newsletterLanguage: input.newsletterLanguage ?? current.newsletterLanguage,
    channels: { ...current.channels, ...definedOf(input.channels) },
    notifications: { ...current.notifications, ...definedOf(input.notifications) },
  };
  await savePreferences(trx, {
    client_account_id: actor.clientAccountId,
    newsletter_language: next.newsletterLanguage,
    email_channel: next.channels.email,
    sms_channel: next.channels.sms,
    order_updates: next.notifications.orderUpdates,
    back_in_stock: next.notifications.backInStock,
    wishlist_offers: next.notifications.wishlistOffers,
    updated_at: now,
  });
  if (next.newsletterLanguage !== current.newsletterLanguage) {
    // The subscription the language is read from (above) takes it: the next newsletter is in it.
    const email = await confirmedLoginEmailOf(trx, actor.clientAccountId);
    if (email !== null)
      await setSubscribedLanguage(trx, { confirmedEmail: email, storeCode: actor.storeCode, language: next.newsletterLanguage }, now);
  }
  return next;
}

function definedOf<T extends object>(value: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(value ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export async function readCategoryPreferences(db: Db, actor: ProfileActor, language: Language) {
  const rows = await followedCategories(db, actor.clientAccountId, language);
  return rows.map((row) => ({ id: Number(row.id), code: row.code, name: row.name ?? row.code }));
}

/** Replaces the followed categories; every one must be a category of the caller's store (422 naming the unknown ones). */
export async function replaceCategoryPreferences(
  trx: Db,
  actor: ProfileActor,
  refs: Array<string | number>,
  language: Language,
  now: number,
) {
  await lockLiveClientAccount(trx, actor.clientAccountId);
  const codes = refs.filter((ref): ref is string => typeof ref === 'string');
  const ids = refs.filter((ref): ref is number => typeof ref === 'number');
  const found = refs.length === 0 ? [] : await categoriesOfStore(trx, actor.storeCode, { codes, ids }, language);
  const errors: InvalidField[] = [];
  const chosen: number[] = [];
  refs.forEach((ref, index) => {
    const category = found.find((row) => (typeof ref === 'string' ? row.code === ref : Number(row.id) === ref));
    if (!category) errors.push({ field: `categories.${index}`, messageKey: 'profile.unknownCategory', params: { category: String(ref) } });
    else if (!chosen.includes(Number(category.id))) chosen.push(Number(category.id));
  });
  if (errors.length > 0) throw new InvalidInputError(errors);
  await replaceFollowedCategories(trx, actor.clientAccountId, chosen, now);
  return readCategoryPreferences(trx, actor, language);
}

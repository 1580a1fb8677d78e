import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { badRequest, forbidden } from '../../infra/domain-error.js';
import { lockAccountsForErasure } from '../client-account-lock/index.js';
import { isFirstSubmission, submissionKey } from '../../infra/resubmit.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import type { NewsletterConfig } from './newsletter.config.js';
import { newsletterConsentChanged, newsletterConsentRecorded } from './newsletter.events.js';
import { queueNewsletterMail } from './newsletter.jobs.js';
import {
  carrySubscriber,
  currentSubscriptionsOf,
  deleteAddressRows,
  expirePendingRequests,
  findCurrentSubscriber,
  findLiveRequestByToken,
  findUserIdByEmail,
  findRequest,
  findSubscriber,
  insertRequest,
  markRequestConfirmed,
  setSubscriberLanguage,
  syncUserNewsletterFlag,
  upsertSubscriber,
  withdrawSubscriber,
} from './newsletter.repository.js';
import type { Recipient, UnsubscribeSigner } from './unsubscribe-link.js';

export interface SubscribeRequest {
  email: string;
  language: string;
  storeCode: string;
  source: string;
}

// An address's rows are written requests first, then subscriptions (a confirmation marks its request
// before it subscribes): in one order for every writer, the erasure's deletes among them
// (newsletter.personal-data.ts), two of them at once never wait for each other both ways. A writer
// that also writes the newsletter flag and consent event of the user of the address holds the
// erasure's locks of that person before any of them (lockPersonOfAddress).

/**
 * For a link followed without a session (a confirmation, an unsubscribe), before the address's rows:
 * the erasure's locks of the user whose login email the address is (their companies and client
 * accounts), as a registration or a verification takes them. Such a link writes that user's newsletter
 * flag and then their event stream, where the erasure takes the stream before the user's row; while the
 * address's rows are the erasure's too, a link and an erasure at once meet there first, but a user
 * whose login email nobody confirmed is erased without the address's rows (they are its owner's), and
 * its owner's link and that erasure at once each held what the other waited for (a deadlock, a 500).
 * The other writers (setConfirmedAddressConsent's callers) come locked already: a verification holds
 * the person's locks, a profile change its caller's account, which the erasure locks too before the
 * user's row, so the two take turns there.
 */
async function lockPersonOfAddress(trx: Db, email: string): Promise<void> {
  const user = await findUserIdByEmail(trx, email);
  if (user !== undefined) await lockAccountsForErasure(trx, user);
}

/**
 * The request side of double opt-in: stores a pending request and queues its confirmation mail in
 * the same transaction, the same work whether or not the address is subscribed already, so the
 * answer tells nothing. The worker decides whether a mail goes out (newsletter.mails.ts). The same
 * request again within the resubmit window (a double click, a retry) stores and mails nothing more:
 * the first link still works, and two identical mails would only confuse.
 */
export async function requestSubscription(
  trx: Db,
  config: Pick<NewsletterConfig, 'jobs'>,
  input: SubscribeRequest,
  now: number,
): Promise<void> {
  const request = { ...input, email: normaliseEmail(input.email) };
  if (!(await isFirstSubmission(trx, submissionKey('newsletter-subscribe', request), now))) return;
  const requestId = await insertRequest(trx, request, now);
  await queueNewsletterMail(trx, config, { kind: 'confirmation', requestId }, now);
}

/**
 * The language a person's confirmed address gets the store's newsletter in, while it is subscribed
 * there (undefined when it is not): the client's `newsletterLanguage` preference reads and sets it,
 * so the preference and the list the newsletter goes out from never disagree.
 */
export async function subscribedLanguage(db: Db, confirmedEmail: string, storeCode: string): Promise<string | undefined> {
  return (await findCurrentSubscriber(db, normaliseEmail(confirmedEmail), storeCode))?.language;
}

/**
 * When a person's confirmed address last gave the store's newsletter consent (the profile's switch,
 * the subscribe form's link, a registration's tick) and, while it is not subscribed there, when it
 * withdrew it (the profile's switch or the unsubscribe link of the store's mails); null: never.
 * Per store, as the subscriptions are: the profile's switch in a store is that store's newsletter.
 */
export async function newsletterConsentTimes(
  db: Db,
  confirmedEmail: string,
  storeCode: string,
): Promise<{ givenAt: number | null; withdrawnAt: number | null }> {
  const row = await findSubscriber(db, normaliseEmail(confirmedEmail), storeCode);
  if (row === undefined) return { givenAt: null, withdrawnAt: null };
  return { givenAt: Number(row.consented_at), withdrawnAt: row.withdrawn_at === null ? null : Number(row.withdrawn_at) };
}

/** Sets the language of the address's current subscription in the store, if it has one. */
export async function setSubscribedLanguage(
  trx: Db,
  subscriber: { confirmedEmail: string; storeCode: string; language: string },
  now: number,
): Promise<void> {
  await setSubscriberLanguage(
    trx,
    { email: normaliseEmail(subscriber.confirmedEmail), storeCode: subscriber.storeCode, language: subscriber.language },
    now,
  );
}

/** Sets the `newsletter` flag of the address's user to whether it is subscribed in some store (a verification without the tick). */
export async function syncNewsletterFlag(trx: Db, email: string, now: number): Promise<void> {
  await syncUserNewsletterFlag(trx, normaliseEmail(email), now);
}

/**
 * The marketing mail consent of a logged-in person whose address is confirmed already (the email a
 * registration just verified, a client's profile) in one store: no confirmation mail is needed, so
 * wanting it subscribes the address in the store at once, and not wanting it withdraws the store's
 * subscription and cancels the store's pending links. Per store, as the subscriptions, the unsubscribe
 * links and the profile's switch are: a switch turned off in one store withdrew every store's before,
 * while a switch turned on there (or the other store's unsubscribe link) changed that store alone.
 * The account's flag (subscribed anywhere) follows, in the same transaction.
 */
export async function setConfirmedAddressConsent(
  trx: Db,
  input: { email: string; storeCode: string; language: string; source: 'profile' | 'registration'; wanted: boolean },
  now: number,
): Promise<void> {
  const email = normaliseEmail(input.email);
  let changed = true;
  if (input.wanted) await upsertSubscriber(trx, { email, storeCode: input.storeCode, language: input.language, source: input.source }, now);
  else {
    // The requests before the subscription, as every writer of an address's rows takes them.
    await expirePendingRequests(trx, email, input.storeCode, now);
    changed = await withdrawSubscriber(trx, email, input.storeCode, now);
  }
  await syncUserNewsletterFlag(trx, email, now);
  // Nothing withdrawn (a verification without the tick of a registration that ticked it, where nothing
  // was subscribed yet) is no change of consent: no withdrawal in the history, as the unsubscribe link's.
  if (!changed) return;
  const history = input.source === 'profile' ? 'PROFILE' : 'REGISTRATION';
  await newsletterConsentRecorded(trx, { email, storeCode: input.storeCode, granted: input.wanted, source: input.source, history }, now);
}

/**
 * A confirmed change of a person's login email (the new address just proved by its link): the
 * subscription is the person's, so it moves with them. Every store's subscription of the old address
 * goes to the new one with its consent time, language and source (a subscription the new address had
 * already stays the one row, with the earlier consent time); the old address's rows are deleted at
 * once, its pending confirmation links with them, so nothing more is sent there and nothing of the
 * person's stays under an address their export and erasure no longer look at. The partner feed
 * hears the old address leave and the new one arrive, both in the person's stream; the account's flag
 * follows the new address. `oldEmail` is null when the old address was not the person's confirmed
 * login: it is its owner's, and so are its subscriptions (nothing moves; the flag still follows the
 * new address). The caller holds the person's client account lock (as the erasure takes it first).
 */
export async function moveToConfirmedAddress(
  trx: Db,
  change: { customerId: number; oldEmail: string | null; newEmail: string },
  now: number,
): Promise<void> {
  const from = change.oldEmail === null ? null : normaliseEmail(change.oldEmail);
  const to = normaliseEmail(change.newEmail);
  if (from === to) return;
  if (from !== null) await moveSubscriptions(trx, { customerId: change.customerId, from, to }, now);
  // Also when nothing moved: the new address may have been subscribed on its own before it was the login.
  await syncUserNewsletterFlag(trx, to, now);
}

async function moveSubscriptions(trx: Db, change: { customerId: number; from: string; to: string }, now: number): Promise<void> {
  const { customerId, from, to } = change;
  const moving = await currentSubscriptionsOf(trx, from);
  // The old address's rows first (its requests, then its subscriptions), then the new one's. They are
  // deleted, not marked withdrawn: what they held goes with the person (its consents carried below,
  // the partner told by the events), and rows left under an address that is no longer their login
  // were reached by neither their data export nor their erasure.
  await deleteAddressRows(trx, from);
  const source = 'email-change';
  for (const row of moving) {
    const storeCode = row.store_code;
    const subscribedAlready = (await findCurrentSubscriber(trx, to, storeCode)) !== undefined;
    const carried = { email: to, storeCode, language: row.language, source: row.source, consentedAt: Number(row.consented_at) };
    await carrySubscriber(trx, carried, now);
    await newsletterConsentChanged(trx, { email: from, storeCode, granted: false, source, customerId }, now);
    if (!subscribedAlready) await newsletterConsentChanged(trx, { email: to, storeCode, granted: true, source, customerId }, now);
  }
}

const badToken = () => badRequest('newsletter.badToken');

/** Follows a confirmation link: the subscription starts now, with the request's store, language and source. */
export async function confirmSubscription(
  trx: Db,
  token: string,
  now: number,
): Promise<{ email: string; storeCode: string; language: string }> {
  if (!isTokenShaped(token)) throw badToken();
  const request = await findLiveRequestByToken(trx, hashToken(token), now);
  if (!request) throw badToken();
  // An erasure waited for here that deleted the request leaves it to be marked by no one: a 400 below.
  await lockPersonOfAddress(trx, request.email);
  const answer = { email: request.email, storeCode: request.store_code, language: request.language };
  // A link followed twice (a double click, a mail scanner that opened it first, two at once): only the first
  // confirmation records the consent; the others get its answer while the subscription it started stands.
  if (request.confirmed_at !== null || !(await markRequestConfirmed(trx, request.id, now))) {
    // Taken at once by another confirmation, the time is only in the row as it is now.
    const confirmedAt = request.confirmed_at ?? (await findRequest(trx, request.id))?.confirmed_at;
    const subscriber = await findCurrentSubscriber(trx, request.email, request.store_code);
    if (confirmedAt == null || !subscriber || subscriber.consented_at < confirmedAt) throw badToken();
    return answer;
  }
  const subscription = { email: request.email, storeCode: request.store_code, language: request.language, source: request.source };
  await upsertSubscriber(trx, subscription, now);
  await syncUserNewsletterFlag(trx, request.email, now);
  const consent = { email: request.email, storeCode: request.store_code, granted: true, source: request.source };
  await newsletterConsentRecorded(trx, { ...consent, history: 'CONFIRMATION_LINK' }, now);
  return answer;
}

/**
 * Follows a signed unsubscribe link: withdraws the subscription (its time kept) and cancels the
 * confirmation links still pending for the address, so a "stop" from the confirmation mail sticks.
 * The same answer whether or not the address was subscribed: the link was made for it.
 */
export async function unsubscribe(trx: Db, signer: UnsubscribeSigner, link: Recipient & { signature: string }, now: number): Promise<void> {
  const recipient = { email: normaliseEmail(link.email), storeCode: link.storeCode };
  if (recipient.email !== link.email || !signer.verify(recipient, link.signature)) throw forbidden('newsletter.badSignature');
  await lockPersonOfAddress(trx, recipient.email);
  // The requests before the subscription, as every writer of an address's rows takes them (the erasure too).
  await expirePendingRequests(trx, recipient.email, recipient.storeCode, now);
  const withdrawn = await withdrawSubscriber(trx, recipient.email, recipient.storeCode, now);
  await syncUserNewsletterFlag(trx, recipient.email, now);
  if (withdrawn) {
    await newsletterConsentRecorded(
      trx,
      { email: recipient.email, storeCode: recipient.storeCode, granted: false, source: 'unsubscribe-link', history: 'UNSUBSCRIBE_LINK' },
      now,
    );
  }
}

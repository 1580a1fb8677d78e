import type { Db } from '../../db/database.js';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import { mailboxKey, normaliseEmail, refuseReservedEmail } from '../../infra/email-address.js';
import type { Language } from '../../i18n/index.js';
import { addressKey } from '../../infra/address-key.js';
import { badRequest, conflict, invalidField, notFound, unauthenticated } from '../../infra/domain-error.js';
import { consumeRateLimit } from '../../infra/rate-limit.js';
import { isFirstSubmission, submissionKey } from '../../infra/resubmit.js';
import { hashToken, isTokenShaped } from '../../infra/tokens.js';
import { audienceKey, type Caller } from '../catalogue/index.js';
import type { BackInStockSection } from './back-in-stock.config.js';
import { queueConfirmationMail, type ClientMailbox } from './back-in-stock.jobs.js';
import {
  armGuestRequest,
  findRequestById,
  findRequestByToken,
  guestRequestsAt,
  deleteRequest,
  keepWaiting,
  lockUserOfClientAccount,
  markRequestConfirmed,
  moveUserRequests,
  requestableProduct,
  upsertRequest,
  type BackInStockRow,
  type RequestState,
} from './back-in-stock.repository.js';

// The rules of a back-in-stock request: a guest gives an email, a client is told at its own; only
// a product the requester may see and that is not available now; one request per store, product
// and address (asking again is the same request, for another 14 days); counted per client address
// and per email before any work. A guest's request is double opt-in, as the newsletter's: it waits
// unconfirmed, and a mail asks the address to confirm it; only confirmed requests are told.

export const REQUEST_LIFETIME_MS = 14 * 86_400_000;

export interface BackInStockInput {
  caller: Caller;
  storeCode: string;
  language: Language;
  now: number;
  ip: string;
  productId: number;
  email?: string;
}

/** What a guest is answered, whatever the address had asked before (so it tells nobody who asked for what). */
export interface GuestAnswer {
  productId: number;
  email: string;
  expiresAt: number;
}

export type RequestOutcome = { kind: 'client'; row: BackInStockRow; created: boolean } | ({ kind: 'guest' } & GuestAnswer);

export async function requestBackInStock(
  db: Db,
  config: BackInStockSection,
  { confirmedEmailOf, wantsBackInStockMails }: ClientMailbox,
  input: BackInStockInput,
): Promise<RequestOutcome> {
  const { caller, now } = input;
  let email: string;
  if (caller.clientAccountId !== null) {
    // The mail goes to the login email, which profile answers only while it is confirmed: one that
    // is not is its owner's mailbox, and the request would also take over the owner's own guest
    // request for the product. The one read of the client's user here (its language is read by the
    // upsert itself).
    const own = await confirmedEmailOf(db, caller.clientAccountId);
    if (own === null) throw conflict('backInStock.emailUnconfirmed');
    if (input.email !== undefined && normaliseEmail(input.email) !== own) throw invalidField('email', 'backInStock.ownEmail');
    // Its preferences say no back-in-stock mails: a request would wait for a mail that is never sent.
    if (!(await wantsBackInStockMails(db, caller.clientAccountId))) throw conflict('backInStock.switchedOff');
    email = own;
  } else {
    if (input.email === undefined) throw invalidField('email', 'backInStock.emailRequired');
    // Its confirmation mail could never arrive, so the request could never be told.
    refuseReservedEmail('email', input.email);
    email = normaliseEmail(input.email);
  }
  await consumeRateLimit(db, `back-in-stock:ip:${addressKey(input.ip)}`, config.perIp, now);
  // A guest's request mails the address it names (its confirmation): counted per inbox. A client's mails
  // nothing when it asks and is counted per account: counted per inbox too, anyone typing the client's
  // address as a guest used up the client's own requests, which were then a 429.
  const requester = caller.clientAccountId === null ? `email:${mailboxKey(email)}` : `client:${caller.clientAccountId}`;
  await consumeRateLimit(db, `back-in-stock:${requester}`, config.perEmail, now);

  const product = await requestableProduct(db, input.storeCode, caller, input.productId);
  if (!product) throw notFound('backInStock.unknownProduct', { id: input.productId });
  if (product.available) throw conflict('backInStock.available');
  const request = {
    storeCode: input.storeCode,
    productId: input.productId,
    email,
    audience: audienceKey(caller),
    now,
  };
  const clientAccountId = caller.clientAccountId;
  if (clientAccountId !== null) {
    const asked = { ...request, clientAccountId, expiresAt: now + REQUEST_LIFETIME_MS };
    const { row, created } = await db.transaction().execute(async (trx) => {
      // The client account's lock, first as the erasure takes it: a request made after an erasure
      // would outlive it.
      await lockLiveClientAccount(trx, clientAccountId);
      // An email change confirmed since the address was read above moves the person's requests in its
      // own transaction: read the address again under the lock it holds, or this request is left at the old one.
      await lockUserOfClientAccount(trx, clientAccountId);
      const current = await confirmedEmailOf(trx, clientAccountId);
      if (current === null) throw conflict('backInStock.emailUnconfirmed');
      const stored = await upsertRequest(trx, { ...asked, email: current });
      // The product read above came back since (a stock import): the scan may have told this very
      // request of it meanwhile, and the re-arm above would have it told again at the next scan.
      // Read after the write, so a claim that the write waited for is seen too (PostgreSQL).
      if ((await requestableProduct(trx, input.storeCode, caller, input.productId))?.available) throw conflict('backInStock.available');
      return stored;
    });
    return { kind: 'client', row, created };
  }
  await db.transaction().execute(async (trx) => {
    await requestAsGuest(trx, config, { ...request, language: input.language });
    // As a client's (above): a request the scan just told of this restock is not re-armed for it.
    if ((await requestableProduct(trx, input.storeCode, caller, input.productId))?.available) throw conflict('backInStock.available');
  });
  return { kind: 'guest', productId: input.productId, email, expiresAt: now + REQUEST_LIFETIME_MS };
}

/**
 * A guest's request: stored unconfirmed (or left alone when its address confirmed it and it still
 * waits, or it is a client's) with its confirmation mail queued in the same transaction. The same
 * request again within the resubmit window (a double click, a retry) stores and mails nothing more:
 * the first link works, and two identical mails would only confuse.
 */
async function requestAsGuest(
  trx: Db,
  config: Pick<BackInStockSection, 'confirmTokenTtlMs'>,
  request: { storeCode: string; productId: number; email: string; language: string; audience: 'R' | 'B'; now: number },
): Promise<void> {
  const { storeCode, productId, email, now } = request;
  if (!(await isFirstSubmission(trx, submissionKey('back-in-stock', { storeCode, productId, email }), now))) return;
  const id = await armGuestRequest(trx, { ...request, linkExpiresAt: now + config.confirmTokenTtlMs });
  if (id !== undefined) await queueConfirmationMail(trx, id, now);
}

const badToken = () => badRequest('backInStock.badToken');

/**
 * Follows a confirmation link: the request is confirmed now and waits 14 days from now. Followed
 * again (a double click, a mail scanner that opened it first, two at once) it changes nothing and
 * answers as the first time, while the link's request lasts.
 */
export async function confirmBackInStock(trx: Db, token: string, now: number): Promise<GuestAnswer> {
  if (!isTokenShaped(token)) throw badToken();
  const hash = hashToken(token);
  const request = await findRequestByToken(trx, hash, now);
  if (!request) throw badToken();
  let confirmed: BackInStockRow | undefined = request;
  if (request.confirmed_at === null) {
    // Of two at once, one confirms; the other, refused by the conditional update, answers with the
    // row as that one left it.
    await markRequestConfirmed(trx, Number(request.id), hash, now, now + REQUEST_LIFETIME_MS);
    confirmed = await findRequestById(trx, Number(request.id));
  }
  if (!confirmed || confirmed.confirmed_at === null || confirmed.token_hash !== hash) throw badToken();
  return { productId: Number(confirmed.product_id), email: confirmed.email, expiresAt: Number(confirmed.expires_at) };
}

/** The logged-in client's account id; a guest has no list of requests (401). */
export function requestingClient(caller: Caller): number {
  if (caller.clientAccountId === null) throw unauthenticated('backInStock.loginRequired');
  return caller.clientAccountId;
}

/**
 * A confirmed change of the person's login email, in its transaction: the requests of every client
 * account of theirs are told at the new address from now on. A guest's request they had made with
 * that address for a product one of their accounts asked for too merges into the account's (one
 * mailbox is told once): the guest's row goes, and if it still waited to be told (confirmed, not
 * told, not expired) the account's waits too, as long as the longer of the two. Guests' requests
 * made with the old address are not the person's (anyone may type an address) and stay.
 */
export async function moveRequestsToLoginEmail(trx: Db, person: { userId: number; email: string }, now: number): Promise<void> {
  const email = normaliseEmail(person.email);
  const own = await moveUserRequests(trx, person.userId, email);
  if (own.length === 0) return;
  for (const guest of await guestRequestsAt(trx, email)) {
    const same = own.filter((row) => row.store_code === guest.store_code && Number(row.product_id) === Number(guest.product_id));
    if (same.length === 0) continue;
    await deleteRequest(trx, Number(guest.id));
    if (!isWaiting(guest, now)) continue;
    const kept = same.find((row) => isWaiting(row, now)) ?? same[0]!;
    await keepWaiting(trx, Number(kept.id), Math.max(Number(kept.expires_at), Number(guest.expires_at)));
  }
}

/** Confirmed, not told yet and not expired: the scan would tell it once its product is back. */
function isWaiting(request: RequestState, now: number): boolean {
  return request.confirmed_at !== null && request.notified_at === null && Number(request.expires_at) > now;
}

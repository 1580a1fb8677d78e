import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../http/paging.js';
import { DomainError, forbidden, notFound } from '../../infra/domain-error.js';
import { lockLiveClientAccount } from '../client-account-lock/index.js';
import { byteRange, fileTag, rangeToServe, type RangeAnswer } from './byte-range.js';
import type { DownloadLink, LinkSigner } from './download-link.js';
import {
  countDownload,
  downloadPage,
  entitledFile,
  giftReceiverKept,
  lockGuestOrder,
  orderFilePage,
  spendLinkBytes,
  takenFile,
  type DownloadRow,
  type EntitledFile,
} from './downloads.repository.js';

// The rules of downloads. A download item is one file (format) of one entitlement, named
// `<orderId>-<fileId>` for a purchase and `S<takeId>-<fileId>` for what a subscription gave (listed
// and linked only while the subscription gives access: subscriptions' accessibleTakes). The caller
// sees and links only its own items in the request's store; anything else is the same 404 as an
// unknown id. A link counts one download of its entitlement the first time it is used, whatever
// range that asks for; later requests with the same link until it expires (a resumed or parallel
// download, a player's ranges) count no download but spend the link's bytes: it serves at most
// DOWNLOAD_LINK_BUDGET times its file's size, so a shared link is not an unlimited source of copies
// while it lasts. Past DOWNLOAD_LIMIT a new link is refused. A guest has no list of its own: its
// order's files are listed and linked for whoever the orders module lets at them (the holder of a
// guest order's checksum; a client's order, its client logged in), and a guest's links are made for no client.

export interface Owner {
  clientAccountId: number;
  storeCode: string;
}

export interface DownloadItem extends DownloadRow {
  id: string;
  allowed: number;
}

const ITEM_ID = /^(S?)([1-9][0-9]{0,15})-([1-9][0-9]{0,15})$/;

const itemId = (row: DownloadRow) => (row.takeId === null ? `${row.orderId}-${row.fileId}` : `S${row.takeId}-${row.fileId}`);

export async function listDownloads(db: Db, owner: Owner, page: PageRequest, limit: number, now: number) {
  const { rows, total } = await downloadPage(db, owner, page, now);
  return { items: rows.map((row): DownloadItem => ({ ...row, id: itemId(row), allowed: limit })), total };
}

/** The file of an item id the caller named, if it is the caller's (in the store, when given) and gives access now. */
function fileOfItem(db: Db, id: string, owner: { clientAccountId: number; storeCode?: string }, now: number) {
  const parts = ITEM_ID.exec(id);
  if (!parts) return Promise.resolve(undefined);
  const [, take, grantId, fileId] = parts as unknown as [string, string, string, string];
  return take === 'S'
    ? takenFile(db, { takeId: Number(grantId), fileId: Number(fileId), ...owner }, now)
    : entitledFile(db, { orderId: Number(grantId), fileId: Number(fileId), ...owner });
}

export interface LinkRules {
  limit: number;
  ttlMs: number;
}

/** A signed link to the caller's item `id`, valid for `ttlMs`. */
export async function createLink(
  db: Db,
  signer: LinkSigner,
  owner: Owner,
  id: string,
  rules: LinkRules,
  now: number,
): Promise<{ token: string; expiresAt: number }> {
  return signedLink(signer, await fileOfItem(db, id, owner, now), owner.clientAccountId, id, rules, now);
}

/** An order whose reader the orders module let through (its client, or a guest with the order's checksum). */
export interface ReadOrder {
  id: number;
  clientAccountId: number | null;
}

/** The order's files to download, as GET /download lists a client's. */
export async function listOrderDownloads(db: Db, order: ReadOrder, page: PageRequest, limit: number) {
  const { rows, total } = await orderFilePage(db, order.id, page);
  return { items: rows.map((row): DownloadItem => ({ ...row, id: itemId(row), allowed: limit })), total };
}

/** A signed link to the order's item `id` (one of listOrderDownloads'), made for the order's client or, for a guest's, none. */
export async function createOrderLink(
  db: Db,
  signer: LinkSigner,
  order: ReadOrder,
  id: string,
  rules: LinkRules,
  now: number,
): Promise<{ token: string; expiresAt: number }> {
  const file = await orderItemFile(db, order.id, id, order.clientAccountId);
  return signedLink(signer, file, order.clientAccountId, id, rules, now);
}

/**
 * A signed link to the order's item `id` for the receiver of the order's downloads bought for them (the orders
 * module checked their key): made for no client, as a guest's, and counted against the same purchase's limit.
 */
export async function createGiftLink(
  db: Db,
  signer: LinkSigner,
  orderId: number,
  id: string,
  rules: LinkRules,
  now: number,
): Promise<{ token: string; expiresAt: number }> {
  return signedLink(signer, await orderItemFile(db, orderId, id, 'receiver'), null, id, rules, now);
}

/** The file of an order's item `id` (`<orderId>-<fileId>`, as listOrderDownloads names it) while the order entitles `clientAccountId` to it. */
async function orderItemFile(db: Db, orderId: number, id: string, clientAccountId: number | null | 'receiver') {
  const parts = ITEM_ID.exec(id);
  return parts && parts[1] === '' && Number(parts[2]) === orderId
    ? entitledFile(db, { orderId, fileId: Number(parts[3]), clientAccountId })
    : undefined;
}

function signedLink(
  signer: LinkSigner,
  file: EntitledFile | undefined,
  clientAccountId: number | null,
  id: string,
  rules: LinkRules,
  now: number,
): { token: string; expiresAt: number } {
  if (!file) throw notFound('downloads.notFound', { id: id.slice(0, 40) });
  if (file.used >= rules.limit) throw forbidden('downloads.limitReached', { limit: rules.limit });
  const expiresAt = now + rules.ttlMs;
  const grant = file.takeId === undefined ? { orderId: file.orderId, gift: file.gift === true } : { takeId: file.takeId };
  return { token: signer.sign({ ...grant, fileId: file.fileId, clientAccountId, expiresAt }), expiresAt };
}

export interface OpenedDownload {
  file: EntitledFile;
  range: RangeAnswer;
  /** The file's entity tag (ETag), which a resuming client sends back as If-Range. */
  tag: string;
}

/**
 * Checks a verified link (the route verifies its signature) and counts its download: 403 when expired, made for
 * another client than the bearer's (`bearerClient`, when one was sent), no longer entitled, past the limit, or
 * when what the request would send takes the link past its bytes (DOWNLOAD_LINK_BUDGET times the file's size). A
 * range outside the file comes back `unsatisfiable` (the route answers 416) and counts nothing. Runs in the
 * caller's transaction, so a refused count leaves no trace of the link either.
 */
export async function openDownload(
  trx: Db,
  request: { link: DownloadLink; bearerClient: number | undefined; range: string | undefined; ifRange: string | undefined },
  rules: { limit: number; linkBudget: number },
  now: number,
): Promise<OpenedDownload> {
  const { link } = request;
  if (link.expiresAt <= now) throw forbidden('downloads.linkInvalid');
  // A receiver's link (an order bought for them) is nobody's account's either; it ends with the receiver's data.
  if (link.gift === true) {
    if (!(await giftReceiverKept(trx, link.orderId))) throw forbidden('downloads.linkInvalid');
    const file = await entitledFile(trx, { orderId: link.orderId, fileId: link.fileId, clientAccountId: 'receiver' });
    if (!file) throw forbidden('downloads.linkInvalid');
    return served(trx, request, file, rules, now);
  }
  // A guest order's link is nobody's account's: a bearer sent with it (a shopper logged in since) changes nothing.
  if (link.clientAccountId !== null) {
    if (request.bearerClient !== undefined && request.bearerClient !== link.clientAccountId) throw forbidden('downloads.otherClient');
    await refuseEndedClient(trx, link.clientAccountId);
  } else if (link.orderId !== undefined) {
    // A guest link has no account to lock: its order's row, which the erasure of its buyer updates (the
    // billing email), so that an erasure committing at the same moment either comes first and is read
    // below (buyerErased), or waits for this download's count. Unlocked, a download read the order before
    // the erasure committed and counted and served the file after it.
    await lockGuestOrder(trx, link.orderId);
  }
  // Any store: the link was made in the entitlement's store and carries no other. A take's link
  // stops working when the take stops giving access (a lapse, the end of a cancelled period, off the shelf).
  // (A subscription's take is always a client's: no guest link names one.)
  const { clientAccountId } = link;
  const file =
    link.takeId === undefined
      ? await entitledFile(trx, { orderId: link.orderId, fileId: link.fileId, clientAccountId })
      : clientAccountId === null
        ? undefined
        : await takenFile(trx, { takeId: link.takeId, fileId: link.fileId, clientAccountId }, now);
  // A guest link's order whose buyer was erased since: its files ended with the person (as an erased client's links).
  if (!file || file.buyerErased) throw forbidden('downloads.linkInvalid');
  return served(trx, request, file, rules, now);
}

/** The range of the file a checked link serves, spending the link's bytes and counting its first use. */
async function served(
  trx: Db,
  request: { link: DownloadLink; range: string | undefined; ifRange: string | undefined },
  file: EntitledFile,
  rules: { limit: number; linkBudget: number },
  now: number,
): Promise<OpenedDownload> {
  const { link } = request;
  const { limit } = rules;
  const tag = fileTag(file.storageKey);
  const range = byteRange(rangeToServe(request.range, request.ifRange, tag), file.size);
  // The route answers 416 with the file's size; nothing is counted.
  if (range.kind === 'unsatisfiable') return { file, range, tag };
  const bytes = range.kind === 'partial' ? range.end - range.start + 1 : file.size;
  const spent = await spendLinkBytes(trx, { ...file, linkId: link.linkId, expiresAt: link.expiresAt }, bytes, rules.linkBudget * file.size);
  if (spent === 'spent') throw forbidden('downloads.linkSpent', { times: rules.linkBudget });
  if (spent === 'first') {
    const used = await countDownload(trx, file, limit, now);
    if (used === undefined) throw forbidden('downloads.limitReached', { limit });
  }
  return { file, range, tag };
}

/**
 * A link is its client's: one whose account was erased, or removed from its company, since the link
 * was made (both end the account's sessions) gets no more bytes from it (403, as a link that expired).
 * Under the client account's lock, as every writer of the client's data takes it, so an erasure or a
 * removal committing at the same moment either comes first and refuses the link, or waits for its count.
 */
async function refuseEndedClient(trx: Db, clientAccountId: number): Promise<void> {
  try {
    await lockLiveClientAccount(trx, clientAccountId);
  } catch (error) {
    if (error instanceof DomainError && error.kind === 'unauthenticated') throw forbidden('downloads.linkInvalid');
    throw error;
  }
}

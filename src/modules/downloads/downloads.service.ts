import type { Db } from '../../db/database.js';
import type { PageRequest } from '../../http/paging.js';
import { forbidden, notFound } from '../../infra/domain-error.js';
import { byteRange, type RangeAnswer } from './byte-range.js';
import type { LinkSigner } from './download-link.js';
import { countDownload, downloadPage, entitledFile, markLinkUsed, type DownloadRow, type EntitledFile } from './downloads.repository.js';

// The rules of downloads. A download item is one file (format) of one entitlement, named
// `<orderId>-<fileId>`. The caller sees and links only its own items in the request's store;
// anything else is the same 404 as an unknown id. A link counts one download of its entitlement the
// first time it is used, whatever range that asks for; later requests with the same link until it
// expires (a resumed or parallel download) are free. Past DOWNLOAD_LIMIT a new link is refused.

export interface Owner {
  clientAccountId: number;
  storeCode: string;
}

export interface DownloadItem extends DownloadRow {
  id: string;
  allowed: number;
}

const ITEM_ID = /^([1-9][0-9]{0,15})-([1-9][0-9]{0,15})$/;

export async function listDownloads(db: Db, owner: Owner, page: PageRequest, limit: number) {
  const { rows, total } = await downloadPage(db, owner, page);
  return { items: rows.map((row): DownloadItem => ({ ...row, id: `${row.orderId}-${row.fileId}`, allowed: limit })), total };
}

/** A signed link to the caller's item `id`, valid for `ttlMs`. */
export async function createLink(
  db: Db,
  signer: LinkSigner,
  owner: Owner,
  id: string,
  rules: { limit: number; ttlMs: number },
  now: number,
): Promise<{ token: string; expiresAt: number }> {
  const parts = ITEM_ID.exec(id);
  const file = parts && (await entitledFile(db, { orderId: Number(parts[1]), fileId: Number(parts[2]), ...owner }));
  if (!file) throw notFound('downloads.notFound', { id: id.slice(0, 40) });
  if (file.used >= rules.limit) throw forbidden('downloads.limitReached', { limit: rules.limit });
  const expiresAt = now + rules.ttlMs;
  return {
    token: signer.sign({ orderId: file.orderId, fileId: file.fileId, clientAccountId: owner.clientAccountId, expiresAt }),
    expiresAt,
  };
}

export interface OpenedDownload {
  file: EntitledFile;
  range: RangeAnswer;
}

/**
 * Checks a link and counts its download: 403 when tampered, expired, made for another client than
 * the bearer's (`bearerClient`, when one was sent), no longer entitled or past the limit. A range
 * outside the file comes back `unsatisfiable` (the route answers 416) and counts nothing. Runs in
 * the caller's transaction, so a refused count leaves no trace of the link either.
 */
export async function openDownload(
  trx: Db,
  signer: LinkSigner,
  request: { token: string; bearerClient: number | undefined; range: string | undefined },
  limit: number,
  now: number,
): Promise<OpenedDownload> {
  const link = signer.verify(request.token);
  if (!link || link.expiresAt <= now) throw forbidden('downloads.linkInvalid');
  if (request.bearerClient !== undefined && request.bearerClient !== link.clientAccountId) throw forbidden('downloads.otherClient');
  // Any store: the link was made in the entitlement's store and carries no other.
  const file = await entitledFile(trx, { orderId: link.orderId, fileId: link.fileId, clientAccountId: link.clientAccountId });
  if (!file) throw forbidden('downloads.linkInvalid');
  const range = byteRange(request.range, file.size);
  // The route answers 416 with the file's size; nothing is counted.
  if (range.kind === 'unsatisfiable') return { file, range };
  if (await markLinkUsed(trx, { linkId: link.linkId, orderId: file.orderId, productId: file.productId, expiresAt: link.expiresAt })) {
    const used = await countDownload(trx, file, limit, now);
    if (used === undefined) throw forbidden('downloads.limitReached', { limit });
  }
  return { file, range };
}

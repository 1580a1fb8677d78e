import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { sharedSecret } from '../../infra/secrets.js';

// A signed download link: `<payload>.<mac>`, both base64url. The payload names the link (a random
// id, so a link counts its download once), what gives the file (a purchase's order id, `G` and the order id
// for the receiver of a purchase bought for them, or `S` and a subscription take's id), the file, the client it was made for (0 for a guest's order: the order's
// checksum link, GET /order/{code}/download/{id}/link, is a guest's only credential) and when it expires; the mac is an
// HMAC-SHA256 of the payload with a server secret. The token is the credential of
// GET /direct-download/{token}: nothing in it can be changed unnoticed.

const SECRET_NAME = 'download-link';

/**
 * What gives the right to a file: a purchase (its order; `gift`: the link of its receiver, the order bought
 * for someone else, whose right ends with the receiver's data) or a subscription take.
 */
export type Grant = { orderId: number; takeId?: undefined; gift?: boolean } | { takeId: number; orderId?: undefined; gift?: undefined };

export type DownloadLink = Grant & {
  linkId: string;
  fileId: number;
  /** The client it was made for; null for a guest's purchase (the order has no client). */
  clientAccountId: number | null;
  expiresAt: number;
};

export interface LinkSigner {
  sign(link: Grant & { fileId: number; clientAccountId: number | null; expiresAt: number }): string;
  /** The link of a well-formed, untampered token (expired or not), else undefined. */
  verify(token: string): DownloadLink | undefined;
}

const TOKEN = /^([A-Za-z0-9_-]{10,200})\.([A-Za-z0-9_-]{43})$/;
const PAYLOAD = /^([A-Za-z0-9_-]{22})\.([SG]?[1-9][0-9]{0,15})\.([1-9][0-9]{0,15})\.(0|[1-9][0-9]{0,15})\.([1-9][0-9]{0,15})$/;

export function linkSigner(secret: string): LinkSigner {
  const mac = (payload: string) => createHmac('sha256', secret).update(`download:${payload}`).digest();
  return {
    sign({ orderId, takeId, gift, fileId, clientAccountId, expiresAt }) {
      const linkId = randomBytes(16).toString('base64url');
      const grant = takeId === undefined ? `${gift === true ? 'G' : ''}${orderId}` : `S${takeId}`;
      const payload = Buffer.from(`${linkId}.${grant}.${fileId}.${clientAccountId ?? 0}.${expiresAt}`).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    verify(token) {
      const parts = TOKEN.exec(token);
      if (!parts) return undefined;
      const [, payload, signature] = parts as unknown as [string, string, string];
      const given = Buffer.from(signature, 'base64url');
      // Constant time, and only then is the payload read at all.
      if (given.length !== 32 || !timingSafeEqual(given, mac(payload))) return undefined;
      const fields = PAYLOAD.exec(Buffer.from(payload, 'base64url').toString('latin1'));
      if (!fields) return undefined;
      const [, linkId, grant, fileId, clientAccountId, expiresAt] = fields as unknown as [string, string, string, string, string, string];
      return {
        linkId,
        ...(grant.startsWith('S')
          ? { takeId: Number(grant.slice(1)) }
          : grant.startsWith('G')
            ? { orderId: Number(grant.slice(1)), gift: true }
            : { orderId: Number(grant) }),
        fileId: Number(fileId),
        clientAccountId: clientAccountId === '0' ? null : Number(clientAccountId),
        expiresAt: Number(expiresAt),
      };
    },
  };
}

/** DOWNLOAD_LINK_SECRET, else the one the service made and keeps (app_secret). */
export function linkSecret(db: Db, configured: string | undefined, now: number): Promise<string> {
  return sharedSecret(db, SECRET_NAME, configured, now);
}

/**
 * The signer, made on first use (the stored secret needs the database, which is not read while the
 * routes register) and made again after a failed read.
 */
export function lazyLinkSigner(db: Db, configured: string | undefined): (now: number) => Promise<LinkSigner> {
  let signer: Promise<LinkSigner> | undefined;
  return (now) => {
    signer ??= linkSecret(db, configured, now).then(linkSigner);
    signer.catch(() => (signer = undefined));
    return signer;
  };
}

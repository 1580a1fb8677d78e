import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { sharedSecret } from '../../infra/secrets.js';

// A signed download link: `<payload>.<mac>`, both base64url. The payload names the link (a random
// id, so a link counts its download once), the entitlement's order, the file, the client it was
// made for and when it expires; the mac is an HMAC-SHA256 of the payload with a server secret. The
// token is the credential of GET /direct-download/{token}: nothing in it can be changed unnoticed.

const SECRET_NAME = 'download-link';

export interface DownloadLink {
  linkId: string;
  orderId: number;
  fileId: number;
  clientAccountId: number;
  expiresAt: number;
}

export interface LinkSigner {
  sign(link: Omit<DownloadLink, 'linkId'>): string;
  /** The link of a well-formed, untampered token (expired or not), else undefined. */
  verify(token: string): DownloadLink | undefined;
}

const TOKEN = /^([A-Za-z0-9_-]{10,200})\.([A-Za-z0-9_-]{43})$/;
const PAYLOAD = /^([A-Za-z0-9_-]{22})\.([1-9][0-9]{0,15})\.([1-9][0-9]{0,15})\.([1-9][0-9]{0,15})\.([1-9][0-9]{0,15})$/;

export function linkSigner(secret: string): LinkSigner {
  const mac = (payload: string) => createHmac('sha256', secret).update(`download:${payload}`).digest();
  return {
    sign({ orderId, fileId, clientAccountId, expiresAt }) {
      const linkId = randomBytes(16).toString('base64url');
      const payload = Buffer.from(`${linkId}.${orderId}.${fileId}.${clientAccountId}.${expiresAt}`).toString('base64url');
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
      const [, linkId, orderId, fileId, clientAccountId, expiresAt] = fields as unknown as string[];
      return {
        linkId: linkId!,
        orderId: Number(orderId),
        fileId: Number(fileId),
        clientAccountId: Number(clientAccountId),
        expiresAt: Number(expiresAt),
      };
    },
  };
}

/** DOWNLOAD_LINK_SECRET, else the one the service made and keeps (app_secret). */
export function linkSecret(db: Db, configured: string | undefined, now: number): Promise<string> {
  return sharedSecret(db, SECRET_NAME, configured, now);
}

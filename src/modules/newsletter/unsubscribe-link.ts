import type { Db } from '../../db/database.js';
import { hmacHex, sameHmacHex, sharedSecret } from '../../infra/secrets.js';
import type { NewsletterConfig } from './newsletter.config.js';

// Unsubscribe links are signed, not stored: an HMAC of the store and the email with a server
// secret, so a link works for whoever got the mail (no login, no token table) and cannot be made
// for another address. The secret is NEWSLETTER_UNSUBSCRIBE_SECRET, or one the service makes once
// and keeps in the database (app_secret), so every process of a fresh install agrees on it.

const SECRET_NAME = 'newsletter-unsubscribe';

/** Whose subscription a link ends: an email (normalised) in a store. */
export interface Recipient {
  email: string;
  storeCode: string;
}

export interface UnsubscribeSigner {
  sign(recipient: Recipient): string;
  /** Whether `signature` is the one of `recipient` (compared in constant time). */
  verify(recipient: Recipient, signature: unknown): boolean;
}

export function unsubscribeSigner(secret: string): UnsubscribeSigner {
  const sign = ({ email, storeCode }: Recipient) => hmacHex(secret, `newsletter-unsubscribe:${storeCode}:${email}`);
  return { sign, verify: (recipient, signature) => sameHmacHex(sign(recipient), signature) };
}

/** NEWSLETTER_UNSUBSCRIBE_SECRET, else the one the service made and keeps (app_secret). */
export function unsubscribeSecret(db: Db, configured: string | undefined, now: number): Promise<string> {
  return sharedSecret(db, SECRET_NAME, configured, now);
}

/** The query of an unsubscribe link: what `POST /newsletter/unsubscribe` checks. */
export function unsubscribeQuery(signer: UnsubscribeSigner, recipient: Recipient): string {
  const query = new URLSearchParams({ email: recipient.email, store: recipient.storeCode, signature: signer.sign(recipient) });
  return query.toString();
}

/** This service's one-click endpoint for `recipient` (RFC 8058: mail clients POST to it). */
export function oneClickUnsubscribeUrl(
  config: Pick<NewsletterConfig, 'orders' | 'basePath'>,
  signer: UnsubscribeSigner,
  recipient: Recipient,
): string {
  return `${config.orders.publicUrl}${config.basePath}/newsletter/unsubscribe?${unsubscribeQuery(signer, recipient)}`;
}

/**
 * The headers that let a mail client offer "unsubscribe" (RFC 2369) and do it in one click
 * (RFC 8058): put them on every marketing mail to `recipient` (`MailMessage.headers`).
 */
export async function newsletterUnsubscribeHeaders(
  db: Db,
  config: Pick<NewsletterConfig, 'newsletter' | 'orders' | 'basePath'>,
  recipient: Recipient,
  now: number,
): Promise<Record<string, string>> {
  const signer = unsubscribeSigner(await unsubscribeSecret(db, config.newsletter.unsubscribeSecret, now));
  return unsubscribeHeaders(oneClickUnsubscribeUrl(config, signer, recipient));
}

export function unsubscribeHeaders(url: string): Record<string, string> {
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}

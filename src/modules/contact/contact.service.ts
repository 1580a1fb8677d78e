import type { Db } from '../../db/database.js';
import type { Language } from '../../i18n/index.js';
import { addressKey } from '../../infra/address-key.js';
import { consumeRateLimit, countHit } from '../../infra/rate-limit.js';
import { isFirstSubmission, submissionKey } from '../../infra/resubmit.js';
import { mailboxKey, normaliseEmail } from '../../infra/email-address.js';
import { queueContactMails } from './contact.jobs.js';
import type { ContactSection } from './contact.config.js';
import type { ContactMessage } from './contact.mails.js';
import type { ContactBody } from './contact.schemas.js';

// The rules of a contact-form message: counted against the client address before any work (a
// bot's flood is refused at the limit whatever it sends), a filled honeypot is answered the same
// and sends nothing, and what is sent is trimmed.

export interface ContactInput {
  storeCode: string;
  language: Language;
  ip: string;
  now: number;
  body: ContactBody;
  /** The logged-in customer's confirmed login email (normalised); null for a guest or an unconfirmed one. */
  ownEmail: string | null;
}

/**
 * Counts the message against the client address's limit, then against the sender's email's (429
 * with Retry-After past either): the acknowledgement goes to whatever email the form names, so
 * without the second many addresses together could fill one inbox.
 */
export async function countContactMessage(
  db: Db,
  limits: ContactSection,
  input: Pick<ContactInput, 'ip' | 'now'> & { body: Pick<ContactBody, 'email'> },
): Promise<void> {
  await consumeRateLimit(db, `contact:ip:${addressKey(input.ip)}`, limits.perIp, input.now);
  await consumeRateLimit(db, `contact:email:${mailboxKey(input.body.email)}`, limits.perEmail, input.now);
}

/**
 * The message to mail, or undefined when the honeypot was filled (a bot: nothing is sent). The
 * acknowledgement copies what was written only to the sender's own proven address (their confirmed
 * login email, as typed in any case): any other address is anyone's to type, and its owner must not
 * get a stranger's text in a mail from the shop.
 */
export function contactMessageOf(input: ContactInput): ContactMessage | undefined {
  const { body } = input;
  if (body.website !== undefined && body.website.trim() !== '') return undefined;
  return {
    storeCode: input.storeCode,
    language: input.language,
    name: body.name.trim(),
    email: body.email.trim(),
    subject: body.subject.trim(),
    message: body.message.trim(),
    orderCode: body.orderCode?.trim() ?? null,
    copyToSender: input.ownEmail !== null && normaliseEmail(body.email) === input.ownEmail,
  };
}

/**
 * Queues the message's two mails (to the office and the acknowledgement to the sender) in the
 * caller's transaction, unless the same message came within the resubmit window: a double click or
 * a retry would mail the office the same message twice, and the sender two acknowledgements.
 */
export async function queueContactMessage(
  trx: Db,
  message: ContactMessage,
  limits: Pick<ContactSection, 'ackPerEmail'>,
  maxAttempts: number,
  now: number,
): Promise<void> {
  if (!(await isFirstSubmission(trx, submissionKey('contact', message), now))) return;
  await queueContactMails(trx, message, maxAttempts, now, await mayAcknowledge(trx, message, limits, now));
}

/**
 * Whether the sender gets an acknowledgement. A guest's address is whatever was typed: each message
 * from a new client address mailed it one, so many addresses together sent a stranger the per-email
 * limit's worth an hour, every hour (5 an hour: 120 a day). Past CONTACT_ACK_PER_EMAIL (one a day by
 * default, counted per mailbox: `+tags` and dots are one inbox) the office still gets the message and
 * the address nothing. A logged-in customer's own confirmed email is theirs: always acknowledged.
 */
async function mayAcknowledge(trx: Db, message: ContactMessage, limits: Pick<ContactSection, 'ackPerEmail'>, now: number) {
  if (message.copyToSender) return true;
  return (await countHit(trx, `contact:ack:${mailboxKey(message.email)}`, limits.ackPerEmail, now)) <= limits.ackPerEmail.max;
}

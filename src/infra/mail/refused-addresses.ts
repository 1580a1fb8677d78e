import type { Db } from '../../db/database.js';
import { deleteInBatches } from '../../db/batched-delete.js';
import { toRfc3339 } from '../../db/time.js';
import type { Clock } from '../clock.js';
import { normaliseEmail } from '../email-address.js';
import type { Logger } from '../logger.js';
import type { PersonalDataPart, PersonalDataSubject } from '../personal-data.js';
import type { MailOutcomes } from './mailer.js';

// Addresses the mail server refused for good: every recipient of a mail refused as a mailbox that
// does not exist (the mailer's RefusedForGood). Marketing mails (a wishlist's offers, a basket's
// reminder: profile's rule) skip them: mailing a dead address again and again is what makes the
// receiving providers take the shop's mail for spam. A mail the server later accepts for the
// address (a password reset once the mailbox exists, the customer's own new one) takes it off, unless
// a late bounce (`mail bounce`) named it: that server is a relay, which takes nearly every mail.
// Mails a customer asked for or must get (an order's, a reset) are still sent: one more refusal
// costs nothing, and the mailbox may exist again. An address is kept at most REFUSED_ADDRESS_KEPT_MS
// from its last refusal: addresses of people who have no account (a contact form's sender, a gift
// card's recipient, a guest buyer) are never mailed again to be taken off, nor erased by a person.

/** How long a refusal keeps marketing mail off an address: a mailbox may be made again (a new employee at an old address). */
export const REFUSED_ADDRESS_KEPT_MS = 180 * 86_400_000;

/** What the mailer reports, kept in `db`. A failure to keep it is logged, never the mail's: a retry would send it twice. */
export function refusedAddressBook(db: Db, clock: Clock, log: Logger): MailOutcomes {
  const keeping = (what: string, work: (addresses: string[]) => Promise<unknown>) => async (recipients: string[]) => {
    const addresses = [...new Set(recipients.map(normaliseEmail))];
    await work(addresses).catch((err: unknown) => log.warn({ err }, `could not keep a ${what} address`));
  };
  return {
    refused: keeping('refused', (addresses) => rememberRefused(db, addresses, clock.now())),
    // Read first: nearly every address was never refused, and a delete takes SQLite's write lock.
    // One a late bounce keeps stays: the server that took the mail is the relay that took the last
    // one too and heard only afterwards that the mailbox does not exist; it goes with its prune.
    delivered: keeping('delivered', async (addresses) => {
      if ((await refusedAmong(db, addresses)).size === 0) return;
      await db.deleteFrom('refused_mail_address').where('address', 'in', addresses).where('late_bounce', '=', false).execute();
    }),
  };
}

/**
 * Keeps `addresses` (normalised) as refused for good at `at`: by the mailer (a refusal at RCPT TO), or
 * by a late bounce (`mail bounce`, `lateBounce`), which a mail the server takes later does not undo.
 */
export async function rememberRefused(db: Db, addresses: readonly string[], at: number, lateBounce = false): Promise<void> {
  if (addresses.length === 0) return;
  await db
    .insertInto('refused_mail_address')
    .values(addresses.map((address) => ({ address, refused_at: at, late_bounce: lateBounce })))
    .onConflict((oc) => oc.column('address').doUpdateSet({ refused_at: at, late_bounce: lateBounce }))
    .execute();
}

/**
 * Someone followed a link mailed to `email` (a verification, a reset, an email change's confirmation):
 * the mailbox exists, whatever a refusal or a late bounce said of it before.
 */
export async function forgetRefusedAddress(db: Db, email: string): Promise<void> {
  await db.deleteFrom('refused_mail_address').where('address', '=', normaliseEmail(email)).execute();
}

/** The worker's prune task: addresses last refused more than REFUSED_ADDRESS_KEPT_MS ago. */
export function pruneRefusedAddresses(db: Db, now: number): Promise<number> {
  return deleteInBatches(db, 'refused_mail_address', {
    key: 'address',
    where: (eb) => eb('refused_at', '<', now - REFUSED_ADDRESS_KEPT_MS),
    orderBy: 'refused_at',
  });
}

/** Of `emails`, those a server refused for good since a mail to them was last accepted (normalised). */
export async function refusedAmong(db: Db, emails: readonly string[]): Promise<Set<string>> {
  const addresses = [...new Set(emails.map(normaliseEmail))];
  if (addresses.length === 0) return new Set();
  const rows = await db.selectFrom('refused_mail_address').select('address').where('address', 'in', addresses).execute();
  return new Set(rows.map((row) => row.address));
}

/**
 * The person's login email, if it was refused: when (export); the row goes with the person (erasure).
 * Looked up by PersonalDataSubject.email: an unconfirmed login email is not the person's, and its
 * row stays until it is pruned.
 */
export const refusedAddressesPersonalData: PersonalDataPart = {
  name: 'refusedMailAddress',
  async export(db: Db, subject: PersonalDataSubject) {
    const row = await db
      .selectFrom('refused_mail_address')
      .select(['address', 'refused_at'])
      .where('address', '=', normaliseEmail(subject.email))
      .executeTakeFirst();
    return row ? { address: row.address, refusedAt: toRfc3339(Number(row.refused_at)) } : null;
  },
  async erase(trx: Db, subject: PersonalDataSubject) {
    await trx.deleteFrom('refused_mail_address').where('address', '=', normaliseEmail(subject.email)).execute();
  },
};

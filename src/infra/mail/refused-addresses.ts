import type { Db } from '../../db/database.js';
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
// address (a password reset once the mailbox exists, the customer's own new one) takes it off.
// Mails a customer asked for or must get (an order's, a reset) are still sent: one more refusal
// costs nothing, and the mailbox may exist again.

/** What the mailer reports, kept in `db`. A failure to keep it is logged, never the mail's: a retry would send it twice. */
export function refusedAddressBook(db: Db, clock: Clock, log: Logger): MailOutcomes {
  const keeping = (what: string, work: (addresses: string[]) => Promise<unknown>) => async (recipients: string[]) => {
    const addresses = [...new Set(recipients.map(normaliseEmail))];
    await work(addresses).catch((err: unknown) => log.warn({ err }, `could not keep a ${what} address`));
  };
  return {
    refused: keeping('refused', async (addresses) => {
      const at = clock.now();
      await db
        .insertInto('refused_mail_address')
        .values(addresses.map((address) => ({ address, refused_at: at })))
        .onConflict((oc) => oc.column('address').doUpdateSet({ refused_at: at }))
        .execute();
    }),
    delivered: keeping('delivered', (addresses) => db.deleteFrom('refused_mail_address').where('address', 'in', addresses).execute()),
  };
}

/** Of `emails`, those a server refused for good since a mail to them was last accepted (normalised). */
export async function refusedAmong(db: Db, emails: readonly string[]): Promise<Set<string>> {
  const addresses = [...new Set(emails.map(normaliseEmail))];
  if (addresses.length === 0) return new Set();
  const rows = await db.selectFrom('refused_mail_address').select('address').where('address', 'in', addresses).execute();
  return new Set(rows.map((row) => row.address));
}

/** The person's login email, if it was refused: when (export); the row goes with the person (erasure). */
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

import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { jobsNaming, rewriteErasedJob } from '../../infra/jobs/jobs.personal-data.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { PROFILE_MAIL_JOB, type ProfileMail } from './profile.jobs.js';

// The profile's own tables: consent history, a pending email change (never its token), whether the
// login email is confirmed, saved addresses and notification preferences. The profile fields
// themselves are on app_user (the accounts part). The erasure deletes every row, and takes the
// person's addresses out of the email-change mails the outbox keeps.

const time = (ms: number | null) => (ms === null ? null : toRfc3339(Number(ms)));

async function exportProfile(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  const consents = await db
    .selectFrom('marketing_consent_event')
    .select(['consent', 'store_code', 'granted', 'source', 'created_at'])
    .where('user_id', '=', subject.userId)
    .orderBy('id')
    .execute();
  const emailChange = await db
    .selectFrom('email_change')
    .select(['new_email', 'requested_at', 'expires_at'])
    .where('user_id', '=', subject.userId)
    .executeTakeFirst();
  const unconfirmed = await db
    .selectFrom('unconfirmed_login_email')
    .select('user_id')
    .where('user_id', '=', subject.userId)
    .executeTakeFirst();
  const addresses =
    ids.length === 0
      ? []
      : await db
          .selectFrom('client_address')
          .innerJoin('client_account', 'client_account.id', 'client_address.client_account_id')
          .select([
            'client_account.code',
            'client_address.kind',
            'client_address.name',
            'client_address.phone',
            'client_address.address',
            'client_address.city',
            'client_address.postcode',
            'client_address.country_code',
            'client_address.default_for',
            'client_address.created_at',
            'client_address.updated_at',
          ])
          .where('client_address.client_account_id', 'in', ids)
          .orderBy('client_address.id')
          .execute();
  const preferences =
    ids.length === 0
      ? []
      : await db
          .selectFrom('client_preference')
          .innerJoin('client_account', 'client_account.id', 'client_preference.client_account_id')
          .selectAll('client_preference')
          .select('client_account.code')
          .where('client_preference.client_account_id', 'in', ids)
          .execute();
  return {
    // The store a consent was given or withdrawn in: for EMAIL, whose newsletter it was (null: from
    // before the history had stores, for a person with client accounts in more than one).
    consentHistory: consents.map((event) => ({
      consent: event.consent,
      store: event.store_code,
      granted: Boolean(event.granted),
      source: event.source,
      at: time(event.created_at),
    })),
    pendingEmailChange: emailChange
      ? { newEmail: emailChange.new_email, requestedAt: time(emailChange.requested_at), expiresAt: time(emailChange.expires_at) }
      : null,
    loginEmailConfirmed: unconfirmed === undefined,
    addresses: addresses.map((row) => ({
      clientCode: row.code,
      kind: row.kind,
      name: row.name,
      phone: row.phone,
      address: row.address,
      city: row.city,
      postcode: row.postcode,
      countryNavCode: row.country_code,
      isDefault: row.default_for !== null,
      createdAt: time(row.created_at),
      updatedAt: time(row.updated_at),
    })),
    preferences: preferences.map((row) => ({
      clientCode: row.code,
      newsletterLanguage: row.newsletter_language,
      emailChannel: Boolean(row.email_channel),
      smsChannel: Boolean(row.sms_channel),
      orderUpdates: Boolean(row.order_updates),
      backInStock: Boolean(row.back_in_stock),
      wishlistOffers: Boolean(row.wishlist_offers),
      updatedAt: time(row.updated_at),
    })),
  };
}

/** The profile mails in the outbox that name `email`, with their payloads. */
async function profileMailsNaming(trx: Db, email: string) {
  const jobs = await jobsNaming(trx, email, PROFILE_MAIL_JOB);
  return jobs.map((job) => ({ id: Number(job.id), status: job.status, mail: JSON.parse(job.payload) as ProfileMail }));
}

/**
 * The person's email-change mails in the outbox (kept 30 days once sent) name their addresses beside
 * their user id: an address they asked to move to (`newEmail`) and their former login email
 * (`oldEmail`), which the outbox's part, looking for the login email alone, left in place. Each such
 * mail of theirs is found from the login email and the pending change, then from the addresses those
 * name (a former login email's own change mail), and its addresses are replaced by the placeholder;
 * one not sent yet is ended. Only mails with the person's user id: an address they left may be
 * someone else's now.
 */
async function eraseEmailChangeMails(trx: Db, subject: PersonalDataSubject, pendingEmail: string | undefined, now: number) {
  const start = [...(subject.loginEmailConfirmed ? [subject.email] : []), ...(pendingEmail === undefined ? [] : [pendingEmail])];
  const seen = new Set(start.map(normaliseEmail));
  const queue = [...seen];
  const done = new Set<number>();
  while (queue.length > 0) {
    for (const job of await profileMailsNaming(trx, queue.shift()!)) {
      if (done.has(job.id) || job.mail.userId !== subject.userId) continue;
      done.add(job.id);
      const mail: Record<string, unknown> = { ...job.mail };
      for (const field of ['oldEmail', 'newEmail'] as const) {
        const address = mail[field];
        if (typeof address !== 'string') continue;
        if (!seen.has(normaliseEmail(address))) {
          seen.add(normaliseEmail(address));
          queue.push(normaliseEmail(address));
        }
        mail[field] = subject.erasedEmail;
      }
      await rewriteErasedJob(trx, job, JSON.stringify(mail), now);
    }
  }
}

async function eraseProfile(trx: Db, subject: PersonalDataSubject, now: number) {
  const ids = accountIdsOf(subject);
  const pending = await trx.selectFrom('email_change').select('new_email').where('user_id', '=', subject.userId).executeTakeFirst();
  await eraseEmailChangeMails(trx, subject, pending?.new_email, now);
  await trx.deleteFrom('marketing_consent_event').where('user_id', '=', subject.userId).execute();
  await trx.deleteFrom('email_change').where('user_id', '=', subject.userId).execute();
  await trx.deleteFrom('unconfirmed_login_email').where('user_id', '=', subject.userId).execute();
  if (ids.length === 0) return;
  await trx.deleteFrom('client_address').where('client_account_id', 'in', ids).execute();
  await trx.deleteFrom('client_preference').where('client_account_id', 'in', ids).execute();
}

/** The profile module's part of "your data". */
export const profilePersonalData: PersonalDataPart = { name: 'profile', export: exportProfile, erase: eraseProfile };

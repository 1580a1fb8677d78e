import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { PersonalDataPart, PersonalDataSubject } from '../../infra/personal-data.js';
import { deleteAddressRows } from './newsletter.repository.js';

// Subscriptions and subscribe requests are kept by email (a guest may subscribe too): those of the
// login email, in every store. The erasure deletes them (a withdrawn consent included). A former
// login email keeps nothing: a confirmed change takes its rows along (newsletter.service.ts).

const time = (ms: number | null) => (ms === null ? null : toRfc3339(Number(ms)));

async function exportNewsletter(db: Db, subject: PersonalDataSubject) {
  const subscriptions = await db
    .selectFrom('newsletter_subscriber')
    .select(['store_code', 'language', 'source', 'consented_at', 'withdrawn_at', 'created_at'])
    .where('email', '=', subject.email)
    .orderBy('id')
    .execute();
  const requests = await db
    .selectFrom('newsletter_request')
    .select(['store_code', 'language', 'source', 'created_at', 'confirmed_at'])
    .where('email', '=', subject.email)
    .orderBy('id')
    .limit(1000)
    .execute();
  return {
    subscriptions: subscriptions.map((row) => ({
      store: row.store_code,
      language: row.language,
      source: row.source,
      consentedAt: time(row.consented_at),
      withdrawnAt: time(row.withdrawn_at),
      subscribed: row.withdrawn_at === null,
    })),
    requests: requests.map((row) => ({
      store: row.store_code,
      language: row.language,
      source: row.source,
      requestedAt: time(row.created_at),
      confirmedAt: time(row.confirmed_at),
    })),
  };
}

/**
 * The requests first, then the subscriptions: the order every writer of the address takes them in
 * (newsletter.service.ts). A confirmation marks its request before it subscribes, so one that runs
 * at once is either found holding the request, waited for and its subscription then deleted, or
 * finds its request deleted (a 400, as an unknown link). Subscriptions deleted first missed the
 * subscription of a confirmation still in flight, which outlived the erasure.
 */
async function eraseNewsletter(trx: Db, subject: PersonalDataSubject) {
  await deleteAddressRows(trx, subject.email);
}

/** The newsletter module's part of "your data". */
export const newsletterPersonalData: PersonalDataPart = { name: 'newsletter', export: exportNewsletter, erase: eraseNewsletter };

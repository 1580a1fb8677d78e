import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { PersonalDataPart, PersonalDataSubject } from '../../infra/personal-data.js';

// Linked sign-in identities (provider and subject; the module stores no provider tokens), with the
// email the provider gave at the last sign-in or link and whether it vouched for it
// (`emailVerified`; false for identities older than migration 2026_11_30_0600, whose provider's word
// was not recorded, until they sign in again). The erasure unlinks them and drops the person's
// pending flows and sign-ins.

async function exportSocial(db: Db, subject: PersonalDataSubject) {
  const rows = await db
    .selectFrom('social_identity')
    .select(['provider', 'subject', 'email', 'email_verified', 'created_at'])
    .where('user_id', '=', subject.userId)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    provider: row.provider,
    subject: row.subject,
    email: row.email,
    emailVerified: Boolean(row.email_verified),
    linkedAt: toRfc3339(Number(row.created_at)),
  }));
}

async function eraseSocial(trx: Db, subject: PersonalDataSubject) {
  const identities = await trx
    .selectFrom('social_identity')
    .select(['provider', 'subject'])
    .where('user_id', '=', subject.userId)
    .execute();
  for (const identity of identities) {
    await trx.deleteFrom('auth_record').where('provider', '=', identity.provider).where('subject', '=', identity.subject).execute();
  }
  await trx.deleteFrom('auth_record').where('link_user_id', '=', subject.userId).execute();
  await trx.deleteFrom('oauth_transaction').where('link_user_id', '=', subject.userId).execute();
  await trx.deleteFrom('social_identity').where('user_id', '=', subject.userId).execute();
}

/** The social module's part of "your data". */
export const socialPersonalData: PersonalDataPart = { name: 'socialIdentities', export: exportSocial, erase: eraseSocial };

import type { Db } from '../../db/database.js';
import { customerStream, emailStream, emitEvent } from '../events/index.js';
import { insertConsentEvent, type ConsentHistorySource } from './newsletter.repository.js';

// Consent events for partner integrations (modules/events), written in the transaction of the
// change: the stream of the account with the address when there is one, else the address's own.
// A change whose person is known already (an email change, where the old address is nobody's login
// any more) names them, so both of its addresses' events go to that person's stream.

export async function newsletterConsentChanged(
  trx: Db,
  change: { email: string; storeCode: string | null; granted: boolean; source: string; customerId?: number | null },
  now: number,
): Promise<void> {
  const customerId = change.customerId !== undefined ? change.customerId : await userOfAddress(trx, change.email);
  await emitEvent(
    trx,
    {
      type: 'consent.changed',
      stream: customerId === null ? emailStream(change.email) : customerStream(customerId),
      data: {
        customerId,
        email: change.email,
        channel: 'EMAIL',
        // null: every store (a withdrawal given as the person's, not one store's).
        store: change.storeCode,
        granted: change.granted,
        source: change.source,
      },
    },
    now,
  );
}

/**
 * A consent given or withdrawn in the store (the profile's switch, a registration's tick, the
 * subscribe form's confirmation link, the unsubscribe link of the store's mails): the partner event,
 * and the record of consent (which store's newsletter, when, through what) in the consent history of
 * the user whose confirmed login email the address is (marketing_consent_event, modules/profile's
 * table, written by this module's insertConsentEvent as the newsletter flag on app_user is: profile
 * calls newsletter, so newsletter cannot ask profile), which the profile's times and the person's data export read. An address that
 * is no user's confirmed login keeps its consent on the subscription alone. Not for an email
 * change's move: the person's consent in the store does not change.
 */
export async function newsletterConsentRecorded(
  trx: Db,
  change: { email: string; storeCode: string; granted: boolean; source: string; history: ConsentHistorySource },
  now: number,
): Promise<void> {
  const customerId = await userOfAddress(trx, change.email);
  if (customerId !== null) {
    const event = { userId: customerId, storeCode: change.storeCode, granted: change.granted, source: change.history };
    await insertConsentEvent(trx, { ...event, consent: 'EMAIL' }, now);
  }
  const { history: _history, ...partner } = change;
  await newsletterConsentChanged(trx, { ...partner, customerId }, now);
}

/**
 * The user whose confirmed login email the address is. A user who has not confirmed it (a social
 * sign-up the provider did not vouch for, modules/profile) is not shown to own it: the address's
 * consents are its owner's, kept in the address's stream, not told to the platforms as that user's
 * nor handed to them in their "your data".
 */
async function userOfAddress(trx: Db, email: string): Promise<number | null> {
  const user = await trx
    .selectFrom('app_user')
    .select('id')
    .where('email', '=', email)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('unconfirmed_login_email').select('user_id').whereRef('unconfirmed_login_email.user_id', '=', 'app_user.id'))),
    )
    .executeTakeFirst();
  return user === undefined ? null : Number(user.id);
}

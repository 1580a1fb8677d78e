import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { PersonalDataPart, PersonalDataSubject } from '../../infra/personal-data.js';
import { customerStream, emailStream, emitEvent } from './events.js';

// The events about a person (modules/events): their customer stream and their email's stream (a
// guest's orders, a subscription without an account). The erasure blanks the events' data (the
// rows stay, so the streams' sequences and the feed's positions stay whole; deliveries still
// waiting send the blank), moves the email's stream, whose name is the address, to `email:erased-<id>`,
// and writes `customer.erased`, which tells the marketing platforms to erase their copy.

const EXPORTED = 500;

/** Where the events of an erased person's email's stream go: no email address names it. */
export const erasedEmailStream = (userId: number) => `email:erased-${userId}`;

const streamsOf = (subject: PersonalDataSubject) => [customerStream(subject.userId), emailStream(subject.email)];

async function exportEvents(db: Db, subject: PersonalDataSubject) {
  const rows = await db
    .selectFrom('integration_event')
    .select(['type', 'stream', 'data', 'created_at'])
    .where('stream', 'in', streamsOf(subject))
    .orderBy('id', 'desc')
    .limit(EXPORTED)
    .execute();
  return rows.map((row) => ({ type: row.type, occurredAt: toRfc3339(row.created_at), data: JSON.parse(row.data) as unknown }));
}

async function eraseEvents(trx: Db, subject: PersonalDataSubject, now: number) {
  await trx.updateTable('integration_event').set({ data: '{"erased":true}' }).where('stream', 'in', streamsOf(subject)).execute();
  // The email's stream is named by the address itself: the feed and the webhooks show the stream of
  // every event, so the blanked events move to a stream of the erasure's own, their counter with them
  // first (the row an event's writer locks, so one writing meanwhile is waited for). Not to the erased
  // address's stream (emailStream(subject.erasedEmail)): a guest may have typed that address at a
  // checkout, and the two streams would collide. No address makes `email:erased-<id>`.
  const [from, to] = [emailStream(subject.email), erasedEmailStream(subject.userId)];
  await trx.updateTable('integration_stream').set({ stream: to }).where('stream', '=', from).execute();
  await trx.updateTable('integration_event').set({ stream: to }).where('stream', '=', from).execute();
  await emitEvent(trx, { type: 'customer.erased', stream: customerStream(subject.userId), data: { customerId: subject.userId } }, now);
}

/** The events' part of "your data": what was sent to partners about the person (the newest 500). */
export const eventsPersonalData: PersonalDataPart = { name: 'partnerEvents', export: exportEvents, erase: eraseEvents };

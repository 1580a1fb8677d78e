import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { PersonalDataPart, PersonalDataSubject } from '../../infra/personal-data.js';
import { customerStream, emailStream, erasedEmailStream } from '../events/index.js';

// The webhook deliveries of a person's events (modules/events: their customer stream and their
// email's): which platform was sent which event, and when. A delivery keeps its event's stream (the
// order it is sent in), and an email's stream is named by the address: the erasure moves the
// deliveries to the erasure's stream, as the events part moves the events, whichever runs first.

const EXPORTED = 500;

const eventsOf = (db: Db, streams: string[]) => db.selectFrom('integration_event').select('id').where('stream', 'in', streams);

async function exportDeliveries(db: Db, subject: PersonalDataSubject) {
  const rows = await db
    .selectFrom('webhook_delivery as d')
    .innerJoin('integration_event as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoint as w', 'w.id', 'd.endpoint_id')
    .select(['w.name', 'e.type', 'd.status', 'd.delivered_at', 'd.created_at'])
    .where('e.stream', 'in', [customerStream(subject.userId), emailStream(subject.email)])
    .orderBy('d.id', 'desc')
    .limit(EXPORTED)
    .execute();
  return rows.map((row) => ({
    platform: row.name,
    eventType: row.type,
    status: row.status,
    queuedAt: toRfc3339(Number(row.created_at)),
    deliveredAt: row.delivered_at === null ? null : toRfc3339(Number(row.delivered_at)),
  }));
}

async function eraseDeliveries(trx: Db, subject: PersonalDataSubject) {
  const from = emailStream(subject.email);
  const to = erasedEmailStream(subject.userId);
  await trx
    .updateTable('webhook_delivery')
    .set({ stream: to })
    .where('stream', '=', from)
    .where('event_id', 'in', eventsOf(trx, [from, to]))
    .execute();
}

/** The integrations' part of "your data": the webhooks sent about the person (the newest 500). */
export const integrationsPersonalData: PersonalDataPart = { name: 'partnerDeliveries', export: exportDeliveries, erase: eraseDeliveries };

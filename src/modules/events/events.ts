import type { Db } from '../../db/database.js';
import { normaliseEmail } from '../../infra/email-address.js';
import { insertEvent, nextSequence } from './events.repository.js';

// Events for partner integrations (marketing platforms): customers, consents, orders and products.
// A writer calls emitEvent with its own transaction, so an event exists if and only if the state
// change that caused it committed (the outbox pattern, like the job queue). Delivery (webhooks)
// and the pull feed are modules/integrations'; this module knows nobody.

export type EventType =
  | 'customer.created'
  | 'customer.updated'
  | 'customer.erased'
  | 'consent.changed'
  | 'order.created'
  | 'order.status-changed'
  | 'product.changed'
  | 'product.deactivated';

export interface NewEvent {
  type: EventType;
  /** The ordering key: events of one stream are delivered in the order they were written. */
  stream: string;
  data: Record<string, unknown>;
}

/** A registered customer's stream. */
export const customerStream = (userId: number) => `customer:${userId}`;
/** The stream of a person known only by email (a guest's orders, a subscriber without an account). */
export const emailStream = (email: string) => `email:${normaliseEmail(email)}`;
export const productStream = (code: string) => `product:${code}`;

/** Writes the event in the caller's transaction (pass the trx!); its id. */
export async function emitEvent(trx: Db, event: NewEvent, now: number): Promise<number> {
  const stream = event.stream.slice(0, 160);
  const sequence = await nextSequence(trx, stream);
  return insertEvent(trx, { type: event.type, stream, sequence, data: JSON.stringify(event.data), createdAt: now });
}

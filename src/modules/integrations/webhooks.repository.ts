import { sql, type Selectable } from 'kysely';
import { deleteInBatches } from '../../db/batched-delete.js';
import type { Db } from '../../db/database.js';
import type { WebhookDeliveryTable, WebhookEndpointTable } from './integrations.tables.js';

// The SQL of webhook endpoints, their deliveries and the delivery log.

export type EndpointRow = Selectable<WebhookEndpointTable>;
export type DeliveryRow = Selectable<WebhookDeliveryTable>;

export function allEndpoints(db: Db): Promise<EndpointRow[]> {
  return db.selectFrom('webhook_endpoint').selectAll().orderBy('name').execute();
}

/** The endpoints the dispatcher fans events out to: those not switched off. */
export function enabledEndpoints(db: Db): Promise<EndpointRow[]> {
  return db.selectFrom('webhook_endpoint').selectAll().where('disabled_at', 'is', null).orderBy('name').execute();
}

/** Per endpoint id (of every endpoint, or only `endpointId`), its deliveries waiting to be sent (pending) and its dead letters; endpoints with neither are left out. */
export async function unsentDeliveryCounts(db: Db, endpointId?: number): Promise<Map<number, { pending: number; dead: number }>> {
  let query = db
    .selectFrom('webhook_delivery')
    .select(['endpoint_id', 'status', (eb) => eb.fn.countAll().as('n')])
    .where('status', 'in', ['pending', 'dead'])
    .groupBy(['endpoint_id', 'status']);
  if (endpointId !== undefined) query = query.where('endpoint_id', '=', endpointId);
  const rows = await query.execute();
  const counts = new Map<number, { pending: number; dead: number }>();
  for (const row of rows) {
    const of = counts.get(Number(row.endpoint_id)) ?? { pending: 0, dead: 0 };
    of[row.status === 'dead' ? 'dead' : 'pending'] = Number(row.n);
    counts.set(Number(row.endpoint_id), of);
  }
  return counts;
}

export function findEndpointByName(db: Db, name: string): Promise<EndpointRow | undefined> {
  return db.selectFrom('webhook_endpoint').selectAll().where('name', '=', name).executeTakeFirst();
}

/** The endpoint a delivery is for; undefined when no delivery has the id. */
export function findEndpointOfDelivery(db: Db, deliveryId: number): Promise<EndpointRow | undefined> {
  return db
    .selectFrom('webhook_endpoint as w')
    .innerJoin('webhook_delivery as d', 'd.endpoint_id', 'w.id')
    .selectAll('w')
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

export async function insertEndpoint(
  db: Db,
  endpoint: Pick<EndpointRow, 'name' | 'url' | 'secret' | 'event_types' | 'max_attempts' | 'fanned_position'>,
  now: number,
): Promise<void> {
  await db
    .insertInto('webhook_endpoint')
    .values({ ...endpoint, created_at: now })
    .execute();
}

/** Switches a switched-off endpoint on with this URL; false when it was on already. */
export async function switchEndpointOn(db: Db, id: number, url: string): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoint')
    .set({ url, disabled_at: null, disabled_reason: null })
    .where('id', '=', id)
    .where('disabled_at', 'is not', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteEndpoint(db: Db, id: number): Promise<void> {
  await db.deleteFrom('webhook_endpoint').where('id', '=', id).execute();
}

/** Deliveries for the endpoint of the positioned events after its fan-out mark, up to `batch`; how many events it passed. */
export async function fanOut(trx: Db, endpoint: EndpointRow, batch: number, now: number): Promise<number> {
  const events = await trx
    .selectFrom('integration_event')
    .select(['id', 'type', 'stream', 'position'])
    .where('position', '>', endpoint.fanned_position)
    .orderBy('position')
    .limit(batch)
    .execute();
  if (events.length === 0) return 0;
  const wanted = events.filter((event) => subscribes(endpoint.event_types, event.type));
  if (wanted.length > 0) {
    await trx
      .insertInto('webhook_delivery')
      .values(
        wanted.map((event) => ({
          endpoint_id: endpoint.id,
          event_id: event.id,
          stream: event.stream,
          position: Number(event.position),
          status: 'pending' as const,
          attempts: 0,
          next_attempt_at: now,
          last_error: null,
          delivered_at: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .onConflict((conflict) => conflict.columns(['endpoint_id', 'event_id']).doNothing())
      .execute();
  }
  const last = Number(events[events.length - 1]!.position);
  await trx.updateTable('webhook_endpoint').set({ fanned_position: last }).where('id', '=', endpoint.id).execute();
  return events.length;
}

/** Whether an endpoint's `event_types` (`*`, or types and prefixes ending in a dot) takes the type. */
export function subscribes(eventTypes: string, type: string): boolean {
  return eventTypes.split(',').some((wanted) => wanted === '*' || wanted === type || (wanted.endsWith('.') && type.startsWith(wanted)));
}

export interface DueDelivery {
  id: number;
  endpoint_id: number;
  attempts: number;
  url: string;
  secret: string;
  max_attempts: number;
  event_id: number;
  type: string;
  stream: string;
  sequence: number;
  position: number;
  data: string;
  created_at: number;
}

/**
 * Deliveries due now that are the first pending one of their stream for their endpoint: a
 * delivery still being retried holds back the later events of its stream (and only of its stream).
 * A switched-off endpoint's deliveries wait.
 */
export function dueDeliveries(db: Db, now: number, limit: number): Promise<DueDelivery[]> {
  return db
    .selectFrom('webhook_delivery as d')
    .innerJoin('webhook_endpoint as w', 'w.id', 'd.endpoint_id')
    .innerJoin('integration_event as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.endpoint_id',
      'd.attempts',
      'w.url',
      'w.secret',
      'w.max_attempts',
      'e.id as event_id',
      'e.type',
      'e.stream',
      'e.sequence',
      'd.position',
      'e.data',
      'e.created_at',
    ])
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where('w.disabled_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_delivery as earlier')
            .select(sql`1`.as('one'))
            .whereRef('earlier.endpoint_id', '=', 'd.endpoint_id')
            .whereRef('earlier.stream', '=', 'd.stream')
            .where('earlier.status', '=', 'pending')
            .whereRef('earlier.position', '<', 'd.position'),
        ),
      ),
    )
    .orderBy('d.position')
    .limit(limit)
    .execute() as Promise<DueDelivery[]>;
}

export async function recordAttempt(
  db: Db,
  attempt: { deliveryId: number; attempt: number; statusCode: number | null; error: string | null; durationMs: number },
  now: number,
): Promise<void> {
  await db
    .insertInto('webhook_attempt')
    .values({
      delivery_id: attempt.deliveryId,
      attempt: attempt.attempt,
      status_code: attempt.statusCode,
      error: attempt.error?.slice(0, 500) ?? null,
      duration_ms: attempt.durationMs,
      created_at: now,
    })
    .execute();
}

export async function markDelivered(db: Db, id: number, attempts: number, now: number): Promise<void> {
  await db
    .updateTable('webhook_delivery')
    .set({ status: 'delivered', attempts, delivered_at: now, last_error: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

export async function markFailed(
  db: Db,
  id: number,
  attempts: number,
  error: string,
  retryAt: number | 'dead',
  now: number,
): Promise<void> {
  await db
    .updateTable('webhook_delivery')
    .set({
      status: retryAt === 'dead' ? 'dead' : 'pending',
      attempts,
      next_attempt_at: retryAt === 'dead' ? now : retryAt,
      last_error: error.slice(0, 500),
      updated_at: now,
    })
    .where('id', '=', id)
    .execute();
}

/** Puts deliveries back in the queue with fresh attempts; how many. */
export async function requeueDeliveries(
  db: Db,
  filter: { id?: number; endpointId?: number; fromPosition?: number; toPosition?: number; status?: 'pending' | 'dead' },
  now: number,
): Promise<number> {
  let query = db
    .updateTable('webhook_delivery')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, delivered_at: null, updated_at: now });
  if (filter.id !== undefined) query = query.where('id', '=', filter.id);
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId);
  if (filter.fromPosition !== undefined) query = query.where('position', '>=', filter.fromPosition);
  if (filter.toPosition !== undefined) query = query.where('position', '<=', filter.toPosition);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function deliveriesOf(db: Db, endpointId: number, status: string | undefined, limit: number) {
  let query = db
    .selectFrom('webhook_delivery as d')
    .innerJoin('integration_event as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.position', 'd.status', 'd.attempts', 'd.last_error', 'd.delivered_at', 'e.type', 'e.stream', 'e.sequence'])
    .where('d.endpoint_id', '=', endpointId)
    .orderBy('d.position', 'desc')
    .limit(limit);
  if (status !== undefined) query = query.where('d.status', '=', status as 'dead');
  return query.execute();
}

export async function deliveryExists(db: Db, deliveryId: number): Promise<boolean> {
  return (await db.selectFrom('webhook_delivery').select('id').where('id', '=', deliveryId).executeTakeFirst()) !== undefined;
}

export function attemptsOf(db: Db, deliveryId: number) {
  return db.selectFrom('webhook_attempt').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
}

const DAY_MS = 86_400_000;

/**
 * The hourly maintenance (src/worker.ts): delivered webhooks and their log after 30 days, and
 * events after 90 days once no delivery of them waits or is dead (a poller more than 90 days
 * behind misses them). A switched-off endpoint's deliveries hold no event: nothing is sent or
 * replayed to it, so they would keep its events until someone removed it; such an event goes
 * after 90 days like any other, and its deliveries and their attempts with it (on delete cascade).
 * How many rows went (the deliveries that went with their events not counted).
 */
export async function pruneIntegrationEvents(db: Db, now: number): Promise<number> {
  // Attempts first, then their deliveries, then the events no delivery names: each step in batches.
  const attempts = await deleteInBatches(db, 'webhook_attempt', {
    key: 'id',
    where: ({ eb, selectFrom }) =>
      eb(
        'delivery_id',
        'in',
        selectFrom('webhook_delivery')
          .select('webhook_delivery.id')
          .where('webhook_delivery.status', '=', 'delivered')
          .where('webhook_delivery.delivered_at', '<', now - 30 * DAY_MS),
      ),
  });
  const deliveries = await deleteInBatches(db, 'webhook_delivery', {
    key: 'id',
    where: (eb) => eb.and([eb('status', '=', 'delivered'), eb('delivered_at', '<', now - 30 * DAY_MS)]),
    orderBy: 'delivered_at',
  });
  const events = await deleteInBatches(db, 'integration_event', {
    key: 'id',
    where: ({ and, eb, not, exists, selectFrom }) =>
      and([
        eb('created_at', '<', now - 90 * DAY_MS),
        eb('position', 'is not', null),
        not(
          exists(
            selectFrom('webhook_delivery')
              .innerJoin('webhook_endpoint', 'webhook_endpoint.id', 'webhook_delivery.endpoint_id')
              .select('webhook_delivery.id')
              .whereRef('webhook_delivery.event_id', '=', 'integration_event.id')
              .where('webhook_endpoint.disabled_at', 'is', null),
          ),
        ),
      ]),
    orderBy: 'created_at',
  });
  return attempts + deliveries + events;
}

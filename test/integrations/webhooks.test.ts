import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { emitEvent, type EventType } from '../../src/modules/events/index.js';
import { createWebhookDispatcher, pruneIntegrationEvents, signText, type WebhookDispatcher } from '../../src/modules/integrations/index.js';
import { addEndpoint, deliveryAttempts, replayDelivery, replayEndpoint } from '../../src/modules/integrations/webhooks.service.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

// Signed webhooks to a real receiver on loopback: in order per stream, retried with exponential
// backoff, dead letters after the endpoint's max attempts, and replays.

let t: TestApp;
let receiver: WebhookReceiver;
let secret: string;
const clock = fixedClock(Date.UTC(2026, 10, 24, 9, 0, 0));
let dispatcher: WebhookDispatcher;

beforeAll(async () => {
  t = await createTestApp();
  receiver = await startWebhookReceiver();
  secret = await addEndpoint(
    t.database.db,
    { name: 'crm', url: receiver.url, eventTypes: 'customer.,order.', maxAttempts: 3, fromStart: false },
    clock.now(),
  );
  dispatcher = createWebhookDispatcher({ db: t.database.db, log: t.app.log, clock, backoffBaseMs: 1000 });
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => 200;
});

async function emit(stream: string, label: string, type: EventType = 'customer.updated') {
  await t.database.db.transaction().execute((trx) => emitEvent(trx, { type, stream, data: { label } }, clock.now()));
}

const labels = (stream?: string) =>
  receiver.received.filter((r) => stream === undefined || r.body.stream === stream).map((r) => `${r.body.data.label}:${r.status}`);

const delivery = (label: string) =>
  t.database.db
    .selectFrom('webhook_delivery as d')
    .innerJoin('integration_event as e', 'e.id', 'd.event_id')
    .select(['d.id', 'd.status', 'd.attempts', 'd.position'])
    .where('e.data', 'like', `%"${label}"%`)
    .executeTakeFirstOrThrow();

describe('webhook delivery', () => {
  it('delivers signed events; a failing event holds back only the later events of its own stream, retried with backoff', async () => {
    await emit('customer:1', 'a1');
    await emit('customer:2', 'b1');
    await emit('customer:1', 'a2');
    await emit('customer:2', 'b2');
    await emit('customer:1', 'a3');
    // The first event of customer 1 fails twice.
    receiver.answer = (body, attempt) => (body.data.label === 'a1' && attempt <= 2 ? 500 : 200);

    await dispatcher.runOnce();
    expect(labels('customer:2')).toEqual(['b1:200', 'b2:200']);
    expect(labels('customer:1')).toEqual(['a1:500']);

    // Signed over `<timestamp>.<body>` with the endpoint's secret.
    const sample = receiver.received[0]!;
    expect(sample.headers['x-signature']).toBe(signText(secret, String(sample.headers['x-timestamp']), sample.raw));
    expect(sample.headers['x-event-id']).toBe(String(sample.body.id));
    expect(sample.headers['content-type']).toBe('application/json');

    // Backoff: 1 s after the first failure, 2 s after the second.
    clock.advance(999);
    expect((await dispatcher.runOnce()).attempted).toBe(0);
    clock.advance(1);
    await dispatcher.runOnce();
    expect(labels('customer:1')).toEqual(['a1:500', 'a1:500']);
    clock.advance(1999);
    expect((await dispatcher.runOnce()).attempted).toBe(0);
    clock.advance(1);
    await dispatcher.runOnce();
    expect(labels('customer:1')).toEqual(['a1:500', 'a1:500', 'a1:200', 'a2:200', 'a3:200']);
    expect(receiver.received.filter((r) => r.body.stream === 'customer:1').map((r) => r.body.sequence)).toEqual([1, 1, 1, 2, 3]);

    // The delivery log: every attempt with its answer.
    const a1 = await delivery('a1');
    expect(a1).toMatchObject({ status: 'delivered', attempts: 3 });
    expect((await deliveryAttempts(t.database.db, a1.id)).map((attempt) => attempt.status_code)).toEqual([500, 500, 200]);
  });

  it('makes an event a dead letter after the max attempts, lets its stream move on, and replays it', async () => {
    await emit('customer:3', 'c1');
    await emit('customer:3', 'c2');
    receiver.answer = (body) => (body.data.label === 'c1' ? 503 : 200);
    await dispatcher.runOnce();
    clock.advance(1000);
    await dispatcher.runOnce();
    clock.advance(2000);
    await dispatcher.runOnce();
    expect(labels('customer:3')).toEqual(['c1:503', 'c1:503', 'c1:503', 'c2:200']);
    const c1 = await delivery('c1');
    expect(c1).toMatchObject({ status: 'dead', attempts: 3 });

    // Nothing more happens to a dead letter until it is replayed.
    clock.advance(3_600_000);
    expect((await dispatcher.runOnce()).attempted).toBe(0);
    receiver.answer = () => 200;
    expect(await replayDelivery(t.database.db, c1.id, clock.now())).toBe(1);
    await dispatcher.runOnce();
    expect(labels('customer:3').at(-1)).toBe('c1:200');
    expect(await delivery('c1')).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it("replays the endpoint's dead letters, and a range of positions in order", async () => {
    await emit('customer:4', 'd1');
    receiver.answer = () => 500;
    for (const wait of [0, 1000, 2000]) {
      clock.advance(wait);
      await dispatcher.runOnce();
    }
    expect(await delivery('d1')).toMatchObject({ status: 'dead' });
    receiver.answer = () => 200;
    expect(await replayEndpoint(t.database.db, 'crm', { deadOnly: true }, clock.now())).toBe(1);
    await dispatcher.runOnce();
    expect(await delivery('d1')).toMatchObject({ status: 'delivered' });

    receiver.received.length = 0;
    const [from, to] = [(await delivery('a1')).position, (await delivery('a3')).position];
    const count = await replayEndpoint(t.database.db, 'crm', { deadOnly: false, from, to }, clock.now());
    expect(count).toBe(5);
    await dispatcher.runOnce();
    await dispatcher.runOnce();
    expect(labels('customer:1')).toEqual(['a1:200', 'a2:200', 'a3:200']);
    expect(labels('customer:2')).toEqual(['b1:200', 'b2:200']);
  });

  it("sends only the endpoint's event types, and only events written after it was added", async () => {
    await emit('product:X', 'p1', 'product.changed');
    await emit('customer:5', 'e1', 'order.created');
    await dispatcher.runOnce();
    expect(labels()).toEqual(['e1:200']);

    const later = await startWebhookReceiver();
    try {
      await addEndpoint(t.database.db, { name: 'late', url: later.url, eventTypes: '*', maxAttempts: 5, fromStart: false }, clock.now());
      await emit('product:X', 'p2', 'product.changed');
      await dispatcher.runOnce();
      expect(later.received.map((r) => r.body.data.label)).toEqual(['p2']);
    } finally {
      await later.close();
    }
  });

  it('retries a receiver that is down (connection refused) like a failing one', async () => {
    const gone = await startWebhookReceiver();
    const url = gone.url;
    await gone.close();
    await addEndpoint(t.database.db, { name: 'down', url, eventTypes: '*', maxAttempts: 2, fromStart: false }, clock.now());
    await emit('customer:6', 'f1');
    await dispatcher.runOnce();
    const endpoint = await t.database.db.selectFrom('webhook_endpoint').select('id').where('name', '=', 'down').executeTakeFirstOrThrow();
    const row = await t.database.db
      .selectFrom('webhook_delivery')
      .select(['id', 'status', 'attempts', 'last_error'])
      .where('endpoint_id', '=', endpoint.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'pending', attempts: 1 });
    expect(row.last_error).toMatch(/fetch failed|ECONNREFUSED|TypeError/);
    clock.advance(1000);
    await dispatcher.runOnce();
    const dead = await t.database.db.selectFrom('webhook_delivery').select('status').where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(dead.status).toBe('dead');
  });

  it('prunes delivered webhooks after 30 days and events after 90, keeping events a dead letter still needs', async () => {
    const count = async (table: 'webhook_delivery' | 'webhook_attempt' | 'integration_event') =>
      Number(
        (
          await t.database.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = { deliveries: await count('webhook_delivery'), events: await count('integration_event') };
    expect(await pruneIntegrationEvents(t.database.db, clock.now() + 29 * 86_400_000)).toBe(0);
    await pruneIntegrationEvents(t.database.db, clock.now() + 91 * 86_400_000);
    const dead = await t.database.db.selectFrom('webhook_delivery').select(['status', 'event_id']).execute();
    expect(dead.length).toBeGreaterThan(0);
    expect(dead.every((row) => row.status !== 'delivered')).toBe(true);
    expect(await count('webhook_delivery')).toBeLessThan(before.deliveries);
    // What is left: the events of the deliveries not delivered.
    expect(await count('integration_event')).toBe(new Set(dead.map((row) => row.event_id)).size);
    expect(await count('webhook_attempt')).toBeGreaterThan(0);
  });

  it("prunes events after 90 days whose only waiting or dead deliveries are a switched-off endpoint's, with those deliveries", async () => {
    const db = t.database.db;
    await addEndpoint(db, { name: 'switched-off', url: receiver.url, eventTypes: '*', maxAttempts: 5, fromStart: false }, clock.now());
    // As migration 1010 leaves an endpoint whose URL held credentials: nothing is sent or replayed to it.
    const off = await db
      .updateTable('webhook_endpoint')
      .set({ disabled_at: clock.now(), disabled_reason: 'its URL held a user name or password' })
      .where('name', '=', 'switched-off')
      .returning('id')
      .executeTakeFirstOrThrow();
    const crm = await db.selectFrom('webhook_endpoint').select('id').where('name', '=', 'crm').executeTakeFirstOrThrow();
    const event = async (label: string, position: number) =>
      (
        await db
          .insertInto('integration_event')
          .values({
            type: 'customer.updated',
            stream: `customer:${label}`,
            sequence: 1,
            position,
            data: `{"label":"${label}"}`,
            created_at: clock.now(),
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const deliver = async (endpointId: number, eventId: number, position: number, status: 'pending' | 'dead') =>
      (
        await db
          .insertInto('webhook_delivery')
          .values({
            endpoint_id: endpointId,
            event_id: eventId,
            stream: 'customer:x',
            position,
            status,
            attempts: 1,
            next_attempt_at: 0,
            created_at: 0,
            updated_at: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const [waiting, dead, shared] = [await event('off-waiting', 900_001), await event('off-dead', 900_002), await event('shared', 900_003)];
    const tried = await deliver(off.id, waiting, 900_001, 'pending');
    await db
      .insertInto('webhook_attempt')
      .values({ delivery_id: tried, attempt: 1, status_code: null, error: 'refused', duration_ms: 1, created_at: 0 })
      .execute();
    await deliver(off.id, dead, 900_002, 'dead');
    await deliver(off.id, shared, 900_003, 'pending');
    // Another endpoint, on, still waits to send this one: it stays.
    await deliver(crm.id, shared, 900_003, 'pending');

    await pruneIntegrationEvents(db, clock.now() + 91 * 86_400_000);
    const events = await db.selectFrom('integration_event').select('id').where('id', 'in', [waiting, dead, shared]).execute();
    expect(events.map((row) => row.id)).toEqual([shared]);
    const offDeliveries = await db.selectFrom('webhook_delivery').select('event_id').where('endpoint_id', '=', off.id).execute();
    expect(offDeliveries.map((row) => row.event_id)).toEqual([shared]);
    expect(await db.selectFrom('webhook_attempt').select('id').where('delivery_id', '=', tried).execute()).toEqual([]);
  });
});

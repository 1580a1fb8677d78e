import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { emitEvent } from '../../src/modules/events/index.js';
import { createWebhookDispatcher } from '../../src/modules/integrations/index.js';
import { addEndpoint } from '../../src/modules/integrations/webhooks.service.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

// An endpoint switched off while the dispatcher fans a backlog of a full batch or more out to it:
// the dispatcher stops fanning out to it, rather than going over the same batch again and again
// with the fan-out mark it read before (while holding the dispatch lease).

let t: TestApp;
let receiver: WebhookReceiver;
const clock = fixedClock(Date.UTC(2026, 10, 24, 9, 0, 0));

beforeAll(async () => {
  t = await createTestApp();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver.close();
  await t.close();
});

// PostgreSQL: the switch-off is made to land between two batches of the fan-out by holding the
// endpoint's row until the fan-out waits to move its mark. SQLite runs one write at a time.
describe.skipIf(engine !== 'postgres')('webhook fan-out', () => {
  it('stops fanning out to an endpoint switched off between two batches of a backlog', async () => {
    const db = t.database.db;
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < 600; i += 1) {
        await emitEvent(trx, { type: 'customer.updated', stream: `customer:${i}`, data: { label: `e${i}` } }, clock.now());
      }
    });
    await addEndpoint(db, { name: 'backlog', url: receiver.url, eventTypes: '*', maxAttempts: 3, fromStart: true }, clock.now());
    const dispatcher = createWebhookDispatcher({ db, log: t.app.log, clock });

    let ended: { done: true } | { failed: unknown } | undefined;
    await db.transaction().execute(async (trx) => {
      // As migration 1010 switches off an endpoint: the row is held until the fan-out waits on it.
      await trx
        .updateTable('webhook_endpoint')
        .set({ disabled_at: clock.now(), disabled_reason: 'switched off by the operator' })
        .where('name', '=', 'backlog')
        .execute();
      void dispatcher.runOnce().then(
        () => (ended = { done: true }),
        (failed: unknown) => (ended = { failed }),
      );
      await until('the fan-out to wait on the endpoint', async () => (await lockWaiters(db)) >= 1);
    });
    // Without the fix the run never ends: give it far more than it needs.
    for (let tries = 0; tries < 1000 && ended === undefined; tries += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ended).toEqual({ done: true });

    const endpoint = await db.selectFrom('webhook_endpoint').selectAll().where('name', '=', 'backlog').executeTakeFirstOrThrow();
    expect(Number(endpoint.fanned_position)).toBe(500);
    expect(receiver.received).toEqual([]);
  }, 60_000);
});

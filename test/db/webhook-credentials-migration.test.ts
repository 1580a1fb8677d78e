import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import * as webhookCredentials from '../../src/db/migrations/2026_12_01_1010_disable_webhook_urls_with_credentials.js';
import * as rewordReason from '../../src/db/migrations/2026_12_01_1400_reword_webhook_credentials_reason.js';
import { fixedClock } from '../../src/infra/clock.js';
import { emitEvent } from '../../src/modules/events/index.js';
import { createWebhookDispatcher, type WebhookDispatcher } from '../../src/modules/integrations/index.js';
import { runCli } from '../helpers/cli.js';
import { recordingLogger } from '../helpers/logger.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';
import { startWebhookReceiver, type WebhookReceiver } from '../integrations/webhook-receiver.js';

// Migration 1010: `webhook add` refuses a URL with a user name or password (fetch builds no request to
// one), but endpoints added before kept theirs, the password in clear in `webhook list` and in every
// failed attempt's error. Up switches those endpoints off with the reason the operator sees in `webhook
// list`, keeps the URL without the credentials, rewrites the errors that quoted them, and the
// dispatcher sends them nothing more; an endpoint whose URL only has an @ elsewhere is left alone.

let database: DatabaseHandle;
let drop: () => Promise<void>;
let env: Record<string, string>;
let receiver: WebhookReceiver;
let dispatcher: WebhookDispatcher;
const clock = fixedClock(Date.UTC(2026, 11, 1, 9, 0, 0));

beforeAll(async () => {
  const scratch = await migratedScratchDatabase(true);
  drop = scratch.drop;
  env = { DATABASE_URL: scratch.url };
  database = createDatabase(scratch.url);
  await migrateToLatest(database);
  receiver = await startWebhookReceiver();
  dispatcher = createWebhookDispatcher({ db: database.db, log: recordingLogger().log, clock, backoffBaseMs: 1000 });
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
  await drop?.();
});

const cli = async (...args: string[]) => {
  const run = await runCli(args, env);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout;
};

async function emit(label: string) {
  await database.db
    .transaction()
    .execute((trx) => emitEvent(trx, { type: 'customer.updated', stream: `customer:${label}`, data: { label } }, clock.now()));
}

describe(`migration 2026_12_01_1010_disable_webhook_urls_with_credentials on ${engine}`, () => {
  it('switches off the endpoints whose URL holds credentials, says why in `webhook list`, and keeps the password nowhere', async () => {
    const db = database.db;
    const withCredentials = receiver.url.replace('http://', 'http://hook-user:hook-pass@');
    const atInQuery = `${receiver.url}?owner=ops@shop.example`;
    // As the build before added them (its `webhook add` took both URLs).
    for (const [name, url] of [
      ['legacy', withCredentials],
      ['tagged', atInQuery],
      ['plain', receiver.url],
    ]) {
      await db
        .insertInto('webhook_endpoint')
        .values({
          name: name!,
          url: url!,
          secret: 'a'.repeat(43),
          event_types: '*',
          max_attempts: 5,
          fanned_position: 0,
          created_at: clock.now(),
        })
        .execute();
    }
    // The dispatcher of that build tried the legacy endpoint and recorded fetch's error, which quotes the URL.
    await emit('before');
    await dispatcher.runOnce();
    expect(receiver.received.map((request) => request.body.data.label)).toEqual(['before', 'before']);
    const legacy = await db.selectFrom('webhook_endpoint').select('id').where('name', '=', 'legacy').executeTakeFirstOrThrow();
    const failed = await db
      .selectFrom('webhook_delivery')
      .select(['id', 'status', 'attempts', 'last_error'])
      .where('endpoint_id', '=', legacy.id)
      .executeTakeFirstOrThrow();
    expect(failed).toMatchObject({ status: 'pending', attempts: 1 });
    expect(failed.last_error).toContain('hook-pass');

    await webhookCredentials.down(db);
    await webhookCredentials.up(db);

    const listed = await cli('webhook', 'list');
    expect(listed).not.toContain('hook-pass');
    expect(listed).not.toContain('hook-user');
    expect(listed).toMatch(
      new RegExp(
        `^legacy\\t${receiver.url.replace(/[.?]/g, '\\$&')}\\tDISABLED \\S+Z: its URL held a user name or password \\(now removed\\).*\\t1 waiting, 0 dead$`,
        'm',
      ),
    );
    expect(listed).toMatch(/^tagged\t\S+\?owner=ops@shop\.example\tevents \*/m);
    expect(listed).toMatch(/^plain\t\S+\tevents \*/m);
    expect(await cli('webhook', 'deliveries', 'legacy')).not.toContain('hook-pass');
    const attempts = await cli('webhook', 'attempts', String(failed.id));
    expect(attempts).toContain('includes credentials');
    expect(attempts).not.toContain('hook-pass');

    // Nothing more goes to it: neither its retry nor a new event; the other endpoints get the new event.
    receiver.received.length = 0;
    clock.advance(3_600_000);
    await emit('after');
    await dispatcher.runOnce();
    expect(receiver.received.map((request) => request.body.data.label)).toEqual(['after', 'after']);
    const kept = await db.selectFrom('webhook_delivery').select(['id', 'attempts']).where('endpoint_id', '=', legacy.id).execute();
    expect(kept).toEqual([{ id: failed.id, attempts: 1 }]);
    // The operator's way out: remove it and add it again with the receiver's URL.
    expect(await cli('webhook', 'remove', 'legacy')).toContain('removed');
    expect((await runCli(['webhook', 'add', 'legacy', receiver.url], env)).code).toBe(0);
  });
});

describe(`migration 2026_12_01_1400_reword_webhook_credentials_reason on ${engine}`, () => {
  it("rewords 1010's reason, which said to remove and add the endpoint again, to name webhook enable; other reasons stay", async () => {
    const db = database.db;
    for (const [name, reason] of [
      ['switched-off-by-1010', webhookCredentials.CREDENTIALS_REMOVED_REASON],
      ['switched-off-otherwise', 'the receiver was retired'],
    ]) {
      await db
        .insertInto('webhook_endpoint')
        .values({
          name: name!,
          url: receiver.url,
          secret: 'b'.repeat(43),
          event_types: '*',
          max_attempts: 5,
          fanned_position: 0,
          created_at: clock.now(),
          disabled_at: clock.now(),
          disabled_reason: reason!,
        })
        .execute();
    }
    const reasons = async () =>
      Object.fromEntries(
        (await db.selectFrom('webhook_endpoint').select(['name', 'disabled_reason']).where('name', 'like', 'switched-off-%').execute()).map(
          (row) => [row.name, row.disabled_reason],
        ),
      );

    await rewordReason.up(db);
    expect(await reasons()).toEqual({
      'switched-off-by-1010': rewordReason.CREDENTIALS_REMOVED_ENABLE_REASON,
      'switched-off-otherwise': 'the receiver was retired',
    });
    expect(await cli('webhook', 'list')).toMatch(/^switched-off-by-1010\t.*switch it back on: webhook enable <name>/m);
    expect(rewordReason.CREDENTIALS_REMOVED_ENABLE_REASON.length).toBeLessThanOrEqual(500);

    await rewordReason.down(db);
    expect((await reasons())['switched-off-by-1010']).toBe(webhookCredentials.CREDENTIALS_REMOVED_REASON);
  });
});

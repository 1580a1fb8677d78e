import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { emitEvent } from '../../src/modules/events/index.js';
import { createWebhookDispatcher, signText, type WebhookDispatcher } from '../../src/modules/integrations/index.js';
import { cliScratch, runCli, type CliScratch } from '../helpers/cli.js';
import { recordingLogger } from '../helpers/logger.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

// `webhook enable`: a switched-off endpoint (migration 1010 switched off those whose URL held
// credentials) is switched back on with its id, secret and deliveries kept, where remove and add
// lost them; refused while its URL is not one `webhook add` accepts. The real receiver gets what
// waited and what was written meanwhile.

let scratch: CliScratch;
let database: DatabaseHandle;
let receiver: WebhookReceiver;
let dispatcher: WebhookDispatcher;
beforeAll(async () => {
  scratch = await cliScratch('storefront-webhook-enable-');
  database = createDatabase(scratch.env.DATABASE_URL!);
  receiver = await startWebhookReceiver();
  // A minute's backoff: a failed delivery is sent again within the test only if enabling requeues it.
  dispatcher = createWebhookDispatcher({ db: database.db, log: recordingLogger().log, backoffBaseMs: 60_000 });
});
afterAll(async () => {
  await receiver?.close();
  await database?.close();
  await scratch?.remove();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.answer = () => 200;
});

const run = (...args: string[]) => runCli(args, scratch.env);
const ok = async (...args: string[]) => {
  const result = await run(...args);
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

async function emit(label: string) {
  await database.db
    .transaction()
    .execute((trx) => emitEvent(trx, { type: 'customer.updated', stream: `customer:${label}`, data: { label } }, Date.now()));
}

const labels = () => receiver.received.map((request) => `${String(request.body.data.label)}:${request.status}`);

/** Switches the endpoint off as migration 1010 does, with `url` as what it kept. */
async function switchOff(name: string, url: string) {
  await database.db
    .updateTable('webhook_endpoint')
    .set({ url, disabled_at: Date.now(), disabled_reason: 'its URL held a user name or password' })
    .where('name', '=', name)
    .execute();
}

const deliveryOf = (label: string, endpoint: string) =>
  database.db
    .selectFrom('webhook_delivery as d')
    .innerJoin('integration_event as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_endpoint as w', 'w.id', 'd.endpoint_id')
    .select(['d.id', 'd.status', 'd.attempts'])
    .where('e.data', 'like', `%"${label}"%`)
    .where('w.name', '=', endpoint)
    .executeTakeFirstOrThrow();

describe('webhook enable', () => {
  it('refuses a URL with credentials (exit 1), then switches on with --url: what waited and what was written meanwhile arrive, signed as before', async () => {
    const secret = (await ok('webhook', 'add', 'crm', receiver.url, '--max-attempts', '5')).trim().split('\n').pop()!;
    const { id } = await database.db.selectFrom('webhook_endpoint').select('id').where('name', '=', 'crm').executeTakeFirstOrThrow();
    await emit('held');
    receiver.answer = () => 500;
    await dispatcher.runOnce();
    expect(labels()).toEqual(['held:500']);
    await switchOff('crm', receiver.url.replace('http://', 'http://hook-user:hook-pass@'));
    await emit('meanwhile');
    receiver.answer = () => 200;
    receiver.received.length = 0;
    await dispatcher.runOnce();
    expect(labels()).toEqual([]);

    const refused = await run('webhook', 'enable', 'crm');
    expect(refused.code, refused.stdout).toBe(1);
    expect(refused.stderr).toContain(
      'error: webhook endpoint "crm" stays switched off: its URL is not one webhook add accepts (the URL must not hold a user name or password',
    );
    expect(refused.stderr).toContain('webhook enable crm --url <url>');
    const badUrl = await run('webhook', 'enable', 'crm', '--url', 'ftp://crm.example/hooks');
    expect(badUrl.code, badUrl.stdout).toBe(2);
    expect(badUrl.stderr).toContain('webhook enable: the URL must be http(s)');
    expect(await ok('webhook', 'list')).toMatch(/^crm\t\S+\tDISABLED \S+Z: its URL held/m);

    const enabled = await ok('webhook', 'enable', 'crm', '--url', receiver.url);
    expect(enabled).toBe(
      'Webhook endpoint "crm" switched back on: 1 deliveries waiting are sent again, then the events written meanwhile.\n',
    );
    const listed = await ok('webhook', 'list');
    expect(listed).toMatch(
      new RegExp(`^crm\\t${receiver.url.replace(/[.]/g, '\\.')}\\tevents \\*\\tmax attempts 5\\t.*\\t1 waiting, 0 dead$`, 'm'),
    );
    expect(listed).not.toContain('hook-pass');

    await dispatcher.runOnce();
    expect(labels()).toEqual(['held:200', 'meanwhile:200']);
    const sample = receiver.received[0]!;
    expect(sample.headers['x-signature']).toBe(signText(secret, String(sample.headers['x-timestamp']), sample.raw));
    // The same endpoint and delivery, sent again from its first attempt.
    expect(await deliveryOf('held', 'crm')).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(await database.db.selectFrom('webhook_endpoint').select('id').where('name', '=', 'crm').executeTakeFirstOrThrow()).toEqual({
      id,
    });
    expect(await ok('webhook', 'attempts', String((await deliveryOf('held', 'crm')).id))).toMatch(
      /\tattempt 1\t500\t.*\n.*\tattempt 1\t200\t/,
    );

    const again = await run('webhook', 'enable', 'crm');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('webhook endpoint "crm" is not switched off: nothing was changed');
    // A bad --url is a bad argument whatever the endpoint's state (docs/integrations.md), an unknown name's too.
    for (const target of ['crm', 'nowhere']) {
      const bad = await run('webhook', 'enable', target, '--url', 'notaurl');
      expect(bad.code, bad.stderr).toBe(2);
    }
    const unknown = await run('webhook', 'enable', 'nowhere');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no webhook endpoint named "nowhere"');
  });

  it('switches on an endpoint whose kept URL add accepts, leaving its dead letters to a replay, which it then allows', async () => {
    await ok('webhook', 'add', 'erp', receiver.url, '--max-attempts', '1');
    await emit('dead');
    receiver.answer = () => 500;
    await dispatcher.runOnce();
    expect(await deliveryOf('dead', 'erp')).toMatchObject({ status: 'dead' });
    await switchOff('erp', receiver.url);
    expect((await run('webhook', 'replay', 'erp', '--dead')).stderr).toContain('switch it back on first (webhook enable erp)');

    const enabled = await ok('webhook', 'enable', 'erp');
    expect(enabled).toContain('switched back on: 0 deliveries waiting are sent again');
    expect(enabled).toContain('1 dead letters stay dead: webhook replay erp --dead sends them again.');
    receiver.answer = () => 200;
    receiver.received.length = 0;
    expect(await ok('webhook', 'replay', 'erp', '--dead')).toContain('1 deliveries queued again.');
    await dispatcher.runOnce();
    expect(labels()).toContain('dead:200');
    expect(await deliveryOf('dead', 'erp')).toMatchObject({ status: 'delivered' });
  });
});

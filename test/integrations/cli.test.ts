import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// The operators' commands of the partner integrations; one of them as a real process.

let dir: string;
let env: Record<string, string>;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-integrations-cli-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  drop = scratch?.drop;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
  expect((await runCli(['migrate'], env)).code).toBe(0);
});
afterAll(async () => {
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => runCli(args, env);

/** Several commands each, and one process several seconds on a loaded machine. */
const CLI_TIMEOUT_MS = 60_000;

describe('storefront supplier, webhook and event-feed', () => {
  it(
    'adds a supplier (its secret printed once), disables and enables it, rotates its secret, lists and removes it',
    async () => {
      const added = await runCliProcess(['supplier', 'add', 'ACME', 'Acme', 'Books'], env);
      expect(added.code, added.stderr).toBe(0);
      const secret = added.stdout.trim().split('\n').pop()!;
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await run('supplier', 'add', 'ACME', 'Again')).code).toBe(1);
      expect((await run('supplier', 'disable', 'ACME')).stdout).toContain('disabled');
      const listed = await run('supplier', 'list');
      expect(listed.stdout).toMatch(/^ACME\tAcme Books\tDISABLED \S+Z\t0 active products/m);
      expect(listed.stdout).not.toContain(secret);
      const rotated = (await run('supplier', 'rotate', 'ACME')).stdout.trim().split('\n').pop()!;
      expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(rotated).not.toBe(secret);
      expect((await run('supplier', 'remove', 'ACME')).code).toBe(0);
      const unknown = await run('supplier', 'enable', 'ACME');
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('no supplier with code "ACME"');
      expect((await run('supplier', 'frobnicate')).code).toBe(2);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'adds, lists and removes webhook endpoints; replays say how many deliveries were queued',
    async () => {
      const added = await run(
        'webhook',
        'add',
        'crm',
        'https://crm.example/hooks',
        '--events',
        'customer.,order.created',
        '--max-attempts',
        '5',
      );
      expect(added.code, added.stderr).toBe(0);
      const secret = added.stdout.trim().split('\n').pop()!;
      const listed = await run('webhook', 'list');
      expect(listed.stdout).toMatch(/^crm\thttps:\/\/crm\.example\/hooks\tevents customer\.,order\.created\tmax attempts 5/m);
      expect(listed.stdout).not.toContain(secret);
      expect(listed.stdout).toMatch(/^crm\t.*\t0 waiting, 0 dead$/m);
      // Two deliveries still to send and a dead letter, as the dispatcher leaves them.
      const database = createDatabase(env.DATABASE_URL!);
      try {
        const endpoint = await database.db.selectFrom('webhook_endpoint').select('id').where('name', '=', 'crm').executeTakeFirstOrThrow();
        for (const [position, status] of [
          [1, 'dead'],
          [2, 'pending'],
          [3, 'pending'],
          [4, 'delivered'],
        ] as const) {
          const stream = `customer:${position}`;
          const event = await database.db
            .insertInto('integration_event')
            .values({ type: 'customer.updated', stream, sequence: 1, position, data: '{}', created_at: 0 })
            .returning('id')
            .executeTakeFirstOrThrow();
          await database.db
            .insertInto('webhook_delivery')
            .values({
              endpoint_id: endpoint.id,
              event_id: event.id,
              stream,
              position,
              status,
              attempts: 1,
              next_attempt_at: 0,
              created_at: 0,
              updated_at: 0,
            })
            .execute();
        }
      } finally {
        await database.close();
      }
      expect((await run('webhook', 'list')).stdout).toMatch(/^crm\t.*\t2 waiting, 1 dead$/m);
      expect((await run('webhook', 'add', 'bad', 'ftp://x')).code).toBe(2);
      expect((await run('webhook', 'replay', 'crm', '--dead')).stdout).toContain('1 deliveries queued again.');
      expect((await run('webhook', 'list')).stdout).toMatch(/^crm\t.*\t3 waiting, 0 dead$/m);
      expect((await run('webhook', 'replay', 'crm', '--from', 'x', '--to', '2')).code).toBe(2);
      expect((await run('webhook', 'remove', 'crm')).code).toBe(0);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses a webhook URL with a user name or password in it: no request can be sent to it (exit 2, nothing added)',
    async () => {
      // fetch refuses such a URL before it connects, so every event would have gone dead after its
      // attempts; and `webhook list` would have printed the password.
      for (const url of ['https://user:secret@crm.example/hooks', 'https://token@crm.example/hooks']) {
        const added = await run('webhook', 'add', 'with-credentials', url);
        expect(added.code, added.stdout).toBe(2);
        expect(added.stderr).toContain('webhook add: the URL must not hold a user name or password');
      }
      expect((await run('webhook', 'list')).stdout).not.toContain('with-credentials');
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses to replay the deliveries of a switched-off endpoint, which nothing is sent to (exit 1, nothing queued)',
    async () => {
      expect((await run('webhook', 'add', 'legacy', 'https://legacy.example/hooks')).code).toBe(0);
      // As migration 1010 leaves an endpoint whose URL held credentials: switched off, a dead letter kept.
      const database = createDatabase(env.DATABASE_URL!);
      let deliveryId: number;
      try {
        const endpoint = await database.db
          .updateTable('webhook_endpoint')
          .set({ disabled_at: 0, disabled_reason: 'its URL held a user name or password' })
          .where('name', '=', 'legacy')
          .returning('id')
          .executeTakeFirstOrThrow();
        const event = await database.db
          .insertInto('integration_event')
          .values({ type: 'customer.updated', stream: 'customer:legacy', sequence: 1, position: 10, data: '{}', created_at: 0 })
          .returning('id')
          .executeTakeFirstOrThrow();
        const delivery = await database.db
          .insertInto('webhook_delivery')
          .values({
            endpoint_id: endpoint.id,
            event_id: event.id,
            stream: 'customer:legacy',
            position: 10,
            status: 'dead',
            attempts: 10,
            next_attempt_at: 0,
            created_at: 0,
            updated_at: 0,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        deliveryId = Number(delivery.id);
      } finally {
        await database.close();
      }
      for (const args of [[String(deliveryId)], ['legacy', '--dead'], ['legacy', '--from', '1', '--to', '20']]) {
        const replayed = await run('webhook', 'replay', ...args);
        expect(replayed.code, replayed.stdout).toBe(1);
        expect(replayed.stdout).toBe('');
        expect(replayed.stderr).toContain(
          'error: webhook endpoint "legacy" is switched off (webhook list says why): nothing is sent to it',
        );
      }
      expect((await run('webhook', 'list')).stdout).toMatch(/^legacy\t.*\t0 waiting, 1 dead$/m);
      expect((await run('webhook', 'remove', 'legacy')).code).toBe(0);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'adds an event feed client (its token printed once) and revokes it',
    async () => {
      const added = await run('event-feed', 'add', 'platform');
      expect(added.code, added.stderr).toBe(0);
      const token = added.stdout.trim().split('\n').pop()!;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await run('event-feed', 'revoke', 'platform')).stdout).toContain('revoked');
      const listed = await run('event-feed', 'list');
      expect(listed.stdout).toMatch(/^platform\tcreated \S+Z\tnever used\tREVOKED/m);
      expect(listed.stdout).not.toContain(token);
    },
    CLI_TIMEOUT_MS,
  );
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { runCli } from '../helpers/cli.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// `webhook deliveries <name> --limit <n>` reads the newest n deliveries of the log. It took any whole
// number: 0 answered "No deliveries." of an endpoint that has some, and a limit of up to fifteen digits
// read the whole log (millions of rows on a busy endpoint) into the command's memory at once. It takes
// 1 to 1000, as `jobs list --limit` does.

let dir: string;
let env: Record<string, string>;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-webhook-limit-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  drop = scratch?.drop;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
  expect((await runCli(['migrate'], env)).code).toBe(0);
  expect((await runCli(['webhook', 'add', 'crm', 'https://crm.example/hooks'], env)).code).toBe(0);
  const database = createDatabase(env.DATABASE_URL!);
  try {
    const endpoint = await database.db.selectFrom('webhook_endpoint').select('id').where('name', '=', 'crm').executeTakeFirstOrThrow();
    for (const position of [1, 2, 3]) {
      const event = await database.db
        .insertInto('integration_event')
        .values({ type: 'customer.updated', stream: `customer:${position}`, sequence: 1, position, data: '{}', created_at: 0 })
        .returning('id')
        .executeTakeFirstOrThrow();
      await database.db
        .insertInto('webhook_delivery')
        .values({
          endpoint_id: endpoint.id,
          event_id: event.id,
          stream: `customer:${position}`,
          position,
          status: 'delivered',
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
});
afterAll(async () => {
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('webhook deliveries --limit', () => {
  it('lists the newest n deliveries for n from 1 to 1000', async () => {
    const two = await runCli(['webhook', 'deliveries', 'crm', '--limit', '2'], env);
    expect(two.code, two.stderr).toBe(0);
    expect(
      two.stdout
        .trim()
        .split('\n')
        .map((line) => line.split('\t')[1]),
    ).toEqual(['position 3', 'position 2']);
    expect((await runCli(['webhook', 'deliveries', 'crm', '--limit', '1000'], env)).stdout.trim().split('\n')).toHaveLength(3);
  });

  it('refuses 0 and more than 1000 with the usage (exit 2), instead of "No deliveries." or the whole log', async () => {
    for (const limit of ['0', '1001', '999999999999999']) {
      const result = await runCli(['webhook', 'deliveries', 'crm', '--limit', limit], env);
      expect(result.code, limit).toBe(2);
      expect(result.stderr).toContain('--limit must be a whole number from 1 to 1000');
      expect(result.stdout).toBe('');
    }
  });
});

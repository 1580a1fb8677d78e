import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { serve } from '../../src/server.js';
import { engine, migratedScratchDatabase, TEST_CARD_TOKEN_KEYS } from '../helpers/test-app.js';

// `serve` that cannot listen (HOST not an address of this machine, a port taken, a bad METRICS_HOST)
// fails with the listen error (cli.test.ts has the messages and the exit status) and lets go of the
// database it opened. It used to keep it: on PostgreSQL the pool's idle connections held the process
// for their 10 s idle timeout after the error was printed, an operator waiting on a command that had
// already failed.

let scratch: Awaited<ReturnType<typeof migratedScratchDatabase>>;
beforeAll(async () => {
  scratch = await migratedScratchDatabase(true);
});
afterAll(() => scratch?.drop());

/** Connections other than the asking one to the scratch database: PostgreSQL only. */
async function openConnections(): Promise<number> {
  const name = new URL(scratch.url).pathname.slice(1);
  const client = new pg.Client({ connectionString: scratch.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'select count(*) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
      [name],
    );
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}

describe(`serve that cannot listen, on ${engine}`, () => {
  it.each([
    [{ HOST: '192.0.2.1' }, 'EADDRNOTAVAIL'],
    [{ METRICS_PORT: '0', METRICS_HOST: 'no-such-host.invalid' }, 'ENOTFOUND'],
  ])('with %j fails with the listen error and closes its database', async (settings, code) => {
    const config = loadConfig({
      DATABASE_URL: scratch.url,
      CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS,
      LOG_LEVEL: 'silent',
      PORT: '0',
      ...settings,
    });
    await expect(serve(config, { seedDemo: false })).rejects.toMatchObject({ code });
    if (engine === 'postgres') expect(await openConnections()).toBe(0);
  });
});

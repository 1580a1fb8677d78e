import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { migrations } from '../../src/db/migrations/index.js';
import { runCliProcess } from '../helpers/cli.js';
import { scratchDatabase } from '../helpers/test-app.js';
import { call, describeOnPostgres, startApiOn } from './processes.js';

// docs/deployment.md: migrations run once, from a release step; `serve` (and a worker) on
// PostgreSQL refuses to start on an old schema, and `migrate` run twice at once (two release
// steps racing) must leave one schema, each migration applied once.

describeOnPostgres('migrations on a shared database', () => {
  let databaseUrl: string;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const scratch = await scratchDatabase();
    databaseUrl = scratch.url;
    drop = scratch.drop;
  });
  afterAll(() => drop?.());

  it('serve and worker started before the migration refuse to start, saying to run migrate', async () => {
    const [serve, worker] = await Promise.all([
      runCliProcess(['serve'], { DATABASE_URL: databaseUrl, PORT: '0', WORKER: 'off' }),
      runCliProcess(['worker'], { DATABASE_URL: databaseUrl }),
    ]);
    for (const result of [serve, worker]) {
      expect(result.code, result.stderr).toBe(1);
      // How many, and the command an operator of the built service runs; not every name on one line.
      expect(result.stderr).toMatch(/needs \d+ migrations \(\S+ \.\.\. \S+\); run: storefront migrate/);
      expect(result.stderr.split('2026_').length).toBeLessThan(5);
    }
  }, 60_000);

  it('two migrate commands at once both succeed and apply each migration once', async () => {
    const results = await Promise.all([0, 1].map(() => runCliProcess(['migrate'], { DATABASE_URL: databaseUrl })));
    for (const result of results) expect(result.code, result.stderr + result.stdout).toBe(0);
    const database = createDatabase(databaseUrl);
    try {
      const applied = await database.db
        .selectFrom('kysely_migration' as never)
        .select('name' as never)
        .execute();
      expect(applied.map((row) => (row as { name: string }).name).sort()).toEqual(Object.keys(migrations).sort());
    } finally {
      await database.close();
    }
    // And the API now starts and is ready.
    const api = await startApiOn({ DATABASE_URL: databaseUrl });
    try {
      expect((await call(api.url, 'GET', '/site/ready')).status).toBe(200);
    } finally {
      expect(await api.stop()).toBe(0);
    }
  }, 120_000);
});

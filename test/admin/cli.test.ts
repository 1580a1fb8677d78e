import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/database.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// The command line end to end; the importers themselves are tested by calling them (test/import).

let dir: string;
let env: Record<string, string>;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-admin-cli-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  drop = scratch?.drop;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
  expect((await runCli(['migrate'], env)).code).toBe(0);
});
afterAll(async () => {
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('storefront api-key and import', () => {
  it('adds a key (printed once), lists keys without them, and revokes one', async () => {
    const added = await runCli(['api-key', 'add', 'back-office'], env);
    expect(added.code, added.stderr).toBe(0);
    const key = added.stdout.trim().split('\n').pop()!;
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const revoked = await runCli(['api-key', 'revoke', 'back-office'], env);
    expect(revoked.stdout).toContain('"back-office": revoked');
    const listed = await runCliProcess(['api-key', 'list'], env);
    expect(listed.stdout).toMatch(/^back-office\tcreated \S+Z\tnever used\tREVOKED \S+Z$/m);
    expect(listed.stdout).not.toContain(key);
  });

  it('imports a kind from the registry, exits 1 after a bad line and 2 on an unknown kind', async () => {
    const file = join(dir, 'publishers.ndjson');
    writeFileSync(file, `${JSON.stringify({ code: 'P1', name: 'Varrak' })}\n{"code": "P2"}\n`);
    const imported = await runCliProcess(['import', 'publishers', file], env);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('2 lines: {"created":1}, 1 bad');
    expect(imported.stderr).toMatch(/^line 2: .*name/m);
    expect(imported.stderr).toContain(
      'The other lines were imported. Fix the 1 bad line above and import the whole file again: lines imported already stay unchanged.',
    );
    const unknown = await runCli(['import', 'unicorns', file], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown kind "unicorns"');
    expect(unknown.stderr).toContain('import products <file.ndjson> [--force]');
  });

  it('says what to do when no line of the file was imported (a CSV, a JSON array): every line bad, exit 1', async () => {
    const file = join(dir, 'publishers.csv');
    writeFileSync(file, 'code,name\nP9,Varrak\n\n');
    const imported = await runCli(['import', 'publishers', file], env);
    expect(imported.code).toBe(1);
    expect(imported.stdout).toContain('3 lines: {}, 2 bad');
    expect(imported.stderr).toContain(
      'No line was imported: is this an NDJSON file of that kind (one JSON object a line, docs/import.md)?',
    );
  });

  it('refuses a folder given as the file with the usage, exit 2, before reading anything', async () => {
    const refused = await runCli(['import', 'publishers', dir], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: not a file: .+ \(give the path of the NDJSON file itself\)\n\nusage: /);
  });

  it('refuses an import while another process imports the same kind, exit 1, and imports nothing', async () => {
    const database = createDatabase(env.DATABASE_URL!);
    try {
      const now = Date.now();
      await database.db
        .insertInto('import_lock')
        .values({ kind: 'publishers', owner: 'another process', started_at: now, expires_at: now + 60_000 })
        .execute();
      const file = join(dir, 'publishers-locked.ndjson');
      writeFileSync(file, `${JSON.stringify({ code: 'P-LOCKED', name: 'Lukus' })}\n`);
      const refused = await runCli(['import', 'publishers', file], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(
        new RegExp(
          `^error: an import of publishers has been running since \\S+Z; try again when it has finished, ` +
            `or, if it stopped without finishing \\(its process crashed\\), after ${new Date(Math.ceil((now + 60_000) / 1000) * 1000).toISOString().replace('.000', '')}, when its lock lapses$`,
          'm',
        ),
      );
      expect(await database.db.selectFrom('publisher').select('code').where('code', '=', 'P-LOCKED').execute()).toEqual([]);
    } finally {
      await database.db.deleteFrom('import_lock').execute();
      await database.close();
    }
  });
});

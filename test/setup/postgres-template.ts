import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import pg from 'pg';
import { createDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

/**
 * Creating a PostgreSQL database and running every migration took ~0.8 s per test file; copying a
 * migrated template takes ~0.1 s. The global setup makes the template once per run (or finds the
 * one an earlier run made), named by a hash of the migration sources, so a changed or added
 * migration gets a new template and a stale one is never cloned. createTestApp still runs
 * migrateToLatest on the copy: a no-op normally, and a safety net for a migration that lives
 * somewhere the hash does not look.
 */
export async function ensurePostgresTemplate(adminUrl: string, root: string): Promise<string> {
  const name = `storefront_tpl_${migrationsHash(join(root, 'src'))}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Two runs on one server (parallel worktrees, CI) build it once: the second waits, then finds it.
    await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (found.rowCount === 0) await buildTemplate(admin, adminUrl, name);
    return name;
  } finally {
    await admin.end();
  }
}

async function buildTemplate(admin: pg.Client, adminUrl: string, name: string): Promise<void> {
  // Built under another name and renamed when complete, so a run killed halfway leaves no template.
  const building = `${name}_${process.pid}`;
  await admin.query(`drop database if exists ${building}`);
  await admin.query(`create database ${building}`);
  try {
    const database = createDatabase(databaseUrl(adminUrl, building));
    try {
      await migrateToLatest(database);
    } finally {
      await database.close();
    }
    await admin.query(`alter database ${building} rename to ${name}`);
  } catch (error) {
    await admin.query(`drop database if exists ${building} with (force)`);
    throw error;
  }
  // Nobody may connect to it: a connection to the template makes every clone fail.
  await admin.query(`alter database ${name} with is_template true allow_connections false`);
}

/**
 * The statement that copies the template to a new database: FILE_COPY (PostgreSQL 15+) is the faster
 * for a small one. The server's version is asked once per admin connection source.
 */
export async function cloneStatement(admin: Pick<pg.Pool, 'query'>, template: string, name: string): Promise<string> {
  let version = serverVersions.get(admin);
  if (version === undefined) {
    const { rows } = await admin.query<{ version: string }>(`select current_setting('server_version_num') as version`);
    version = Number(rows[0]!.version);
    serverVersions.set(admin, version);
  }
  return `create database ${name} template ${template}${version >= 150_000 ? ' strategy file_copy' : ''}`;
}

const serverVersions = new WeakMap<object, number>();

/**
 * The start of the names of one run's scratch databases (test/helpers/postgres-scratch.ts): the run's
 * process id tells them apart from those of other runs sharing the server, whose databases stay theirs.
 */
export const scratchPrefix = (runPid: number) => `storefront_test_${runPid}_`;

/**
 * Drops what a run left behind: the copy each worker made ahead for a file that never came, and the
 * drops a worker that ended had not finished. Its own commands still running on the server (a create
 * or drop whose worker is gone runs to its end) are waited for first, a minute at most.
 */
export async function dropScratchDatabases(adminUrl: string, prefix: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const pattern = `%database ${prefix}%`;
    for (let waited = 0; waited < 60_000; waited += 200) {
      // Running ones only: an idle session shows its last command too (a worker's kept admin connection, postgres-scratch.ts).
      const running = await admin.query(
        `select 1 from pg_stat_activity where pid <> pg_backend_pid() and state <> 'idle' and query ilike $1`,
        [pattern],
      );
      if (running.rowCount === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const { rows } = await admin.query<{ name: string }>(`select datname as name from pg_database where starts_with(datname, $1)`, [
      prefix,
    ]);
    for (const { name } of rows) await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Every file under src/ with "migration" in its path (migrations, their data and helpers). */
function migrationsHash(src: string): string {
  const hash = createHash('sha256');
  for (const file of filesUnder(src)
    .filter((path) => /migration/i.test(relative(src, path)))
    .sort()) {
    hash.update(relative(src, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

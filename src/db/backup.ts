import { spawn } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CliUsageError } from '../infra/cli-usage.js';
import { refuseUnusableSqliteFile, sqliteFileOf } from './sqlite-file.js';

// `backup <file>` and `restore <file>`: the operators' copy of the database and its way back.
// SQLite: an online backup through SQLite's backup API while the service runs, and a restore that
// refuses while anything has the database open. PostgreSQL has its own tools (pg_dump, PITR): the
// backup runs pg_dump when it is installed, the restore points to pg_restore.

export const BACKUP_USAGE = `  backup <file>                       SQLite: a consistent copy of the database while the service runs
                                      (SQLite's backup API; checked with integrity_check); PostgreSQL:
                                      runs pg_dump --format=custom into <file> (see README for PITR)
  restore <file>                      SQLite: puts a backup in place of the configured database, only
                                      while no process has it open (stop serve and workers first); the
                                      backup is checked first and the old file kept beside it`;

type Print = (line: string) => void;

/** What pg_dump runs with: the command's environment (PATH, PGPASSWORD, ...) and where its messages go. */
export interface BackupIo {
  env: Record<string, string | undefined>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** The database file of a `sqlite:` URL (refusing an in-memory one), or undefined for PostgreSQL. */
function sqliteFile(url: string): string | undefined {
  if (!url.startsWith('sqlite:')) return undefined;
  const file = sqliteFileOf(url);
  if (file === undefined) throw new CliUsageError('an in-memory database (sqlite::memory:) has nothing to back up or restore');
  return resolve(file);
}

function oneFile(args: string[], command: string): string {
  if (args.length !== 1 || args[0]!.startsWith('-')) throw new CliUsageError(`${command} takes one file: ${command} <file>`);
  return resolve(args[0]!);
}

/** `backup <file>`: exit status 0 when the copy is complete and checked. */
export async function backupCommand(url: string, args: string[], print: Print, io: BackupIo): Promise<number> {
  const target = oneFile(args, 'backup');
  if (existsSync(target)) throw new CliUsageError(`${target} already exists; a backup never overwrites a file`);
  if (!existsSync(dirname(target))) throw new CliUsageError(`there is no folder ${dirname(target)} to write the backup into`);
  const source = sqliteFile(url);
  if (source === undefined) return pgDump(url, target, print, io);
  refuseUnusableSqliteFile(url, { consequence: ', so there is nothing to back up', advice: 'check DATABASE_URL' });
  const started = performance.now();
  const partial = `${target}.partial`;
  removeWithSidecars(partial);
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    // All pages in one step after the first: a step reads one snapshot of the database, and a
    // write by the running service between steps would make SQLite start the copy again (a busy
    // shop could keep a page-by-page backup restarting forever). The snapshot holds every write
    // committed, and so acknowledged, before the step began.
    await db.backup(partial, { progress: () => 0x7fffffff });
  } catch (error) {
    removeWithSidecars(partial);
    throw error;
  } finally {
    db.close();
  }
  const problem = settleAndCheck(partial);
  if (problem) {
    removeWithSidecars(partial);
    throw new Error(`the copy failed its check (${problem}); nothing was written`);
  }
  syncFile(partial);
  renameSync(partial, target);
  const megabytes = (statSync(target).size / 1_048_576).toFixed(1);
  print(`Backup written: ${target} (${megabytes} MB, integrity ok) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return 0;
}

/** `restore <file>`: refuses (exit 1) unless the backup checks out and nothing has the database open. */
export async function restoreCommand(url: string, args: string[], print: Print): Promise<number> {
  const backup = oneFile(args, 'restore');
  const target = sqliteFile(url);
  if (target === undefined) {
    print(
      'restore: on PostgreSQL use its own tools: `pg_restore --clean --if-exists --dbname=<DATABASE_URL> <file>` for a ' +
        '`backup` (pg_dump) file, or point-in-time recovery from base backups and WAL archives (see README, Backups).',
    );
    return 1;
  }
  if (!existsSync(backup)) throw new CliUsageError(`no such file: ${backup}`);
  // What is there must be a database to replace (kept beside it), not a folder or another file; none is fine.
  refuseUnusableSqliteFile(url);
  // Copied beside the target and renamed over it: the database file is always whole, old or new.
  // The copy is what is checked, so the backup itself is only read: nothing is written beside it.
  const incoming = `${target}.restoring`;
  copyFileSync(backup, incoming);
  const problem = settleAndCheck(incoming);
  if (problem) {
    removeWithSidecars(incoming);
    print(`restore: ${backup} is not a usable backup (${problem}); nothing was changed`);
    return 1;
  }
  if (existsSync(target) && !closeIfUnused(target)) {
    removeWithSidecars(incoming);
    print(`restore: ${target} is open in another process (serve, worker or a command); stop them first. Nothing was changed.`);
    return 1;
  }
  syncFile(incoming);
  const kept = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  if (existsSync(target)) renameSync(target, kept);
  for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });
  renameSync(incoming, target);
  print(`Restored ${backup} to ${target}${existsSync(kept) ? `; the previous database is kept as ${kept}` : ''}`);
  return 0;
}

/**
 * Whether the database file is free: leaving WAL mode needs every other connection closed (SQLite
 * answers busy otherwise). Afterwards the file is whole in itself (no -wal beside it).
 */
function closeIfUnused(file: string): boolean {
  const db = new BetterSqlite3(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return false;
    throw error;
  } finally {
    db.close();
  }
}

/**
 * Why a copy of ours is not a whole storefront database (undefined when it is one). The copy is taken
 * out of WAL mode first (a copy of a WAL database says WAL in its header): a file in WAL mode gets a
 * -wal and a -shm beside it from whatever opens it, and a read-only connection (an integrity check,
 * a look at an old backup) cannot remove them again, so every backup left two stray files in the
 * backup folder. Out of it, the file is one file; the service puts it back in WAL mode when it opens it.
 */
function settleAndCheck(file: string): string | undefined {
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(file, { fileMustExist: true });
    db.pragma('journal_mode = DELETE');
    const result = db.pragma('integrity_check', { simple: true });
    if (result !== 'ok') return `integrity_check: ${String(result)}`;
    const migrations = db.prepare(`select count(*) as n from sqlite_master where name = 'kysely_migration'`).get() as { n: number };
    if (migrations.n === 0) return 'not a storefront database: it has no migrations table';
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    db?.close();
  }
}

/** Removes a copy of ours that did not pass, and the -wal and -shm an opened copy may have beside it. */
function removeWithSidecars(file: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });
}

function syncFile(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** PostgreSQL: pg_dump in its custom format (restored with pg_restore), or where to find it. */
function pgDump(url: string, target: string, print: Print, io: BackupIo): Promise<number> {
  return new Promise((done) => {
    let finished = false;
    const finish = (code: number) => {
      if (finished) return;
      finished = true;
      if (code !== 0) rmSync(target, { force: true });
      done(code);
    };
    const { dbname, password } = passwordApart(url);
    const child = spawn('pg_dump', ['--format=custom', `--file=${target}`, `--dbname=${dbname}`], {
      // Named pg_dump even where the environment names its connections (PGAPPNAME): the data export's
      // settle cut leaves pg_dump's long read out of the transactions it waits for (data-export/open-writes).
      env: { ...io.env, PGAPPNAME: 'pg_dump', ...(password === undefined ? {} : { PGPASSWORD: password }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.setEncoding('utf8').on('data', (text: string) => io.stdout.write(text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => io.stderr.write(text));
    child.on('error', (error: NodeJS.ErrnoException) => {
      print(
        error.code === 'ENOENT'
          ? 'backup: on PostgreSQL, backups are pg_dump (`pg_dump --format=custom --file=<file> <DATABASE_URL>`) or ' +
              'point-in-time recovery (base backups and WAL archiving); pg_dump is not installed here. See README, Backups.'
          : `backup: pg_dump could not be started: ${error.message}`,
      );
      finish(1);
    });
    // 'close', not 'exit': its messages are passed on by then.
    child.on('close', (code) => {
      if (finished) return;
      if (code === 0) print(`Backup written by pg_dump: ${target} (restore with pg_restore; see README, Backups)`);
      else print(`backup: pg_dump failed (exit ${code ?? 'by a signal'}); see its message above`);
      finish(code === 0 ? 0 : 1);
    });
  });
}

/**
 * DATABASE_URL without its password, and the password: pg_dump takes it from PGPASSWORD. In its
 * arguments it could be read by every user of the machine (ps, /proc/<pid>/cmdline) while the dump ran.
 */
function passwordApart(url: string): { dbname: string; password: string | undefined } {
  // Cut out as text, not through URL: a socket URL (postgres://u:pw@/db?host=/run/postgresql) is no WHATWG
  // URL, and URLSearchParams re-encodes the rest of the query (%20 as +, which libpq does not decode).
  let password: string | undefined;
  let dbname = url.replace(/^(postgres(?:ql)?:\/\/[^:@/?#]*):([^@/?#]*)@/, (_whole, user: string, secret: string) => {
    password = decoded(secret);
    return `${user}@`;
  });
  const queryAt = dbname.indexOf('?');
  if (queryAt >= 0) {
    const kept = dbname
      .slice(queryAt + 1)
      .split('&')
      .filter((pair) => {
        const [key = '', value = ''] = pair.split(/=(.*)/s);
        if (decoded(key) !== 'password') return true;
        password ??= decoded(value);
        return false;
      });
    dbname = kept.length > 0 ? `${dbname.slice(0, queryAt)}?${kept.join('&')}` : dbname.slice(0, queryAt);
  }
  return { dbname: password === undefined ? url : dbname, password };
}

/** Percent-decoded as libpq decodes it; a stray % is kept as written. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { cloneStatement, scratchPrefix } from '../setup/postgres-template.js';

// A test file's PostgreSQL database is a copy of the migrated template, dropped when the file ends.
// Both wait for checkpoints of the whole server: CREATE DATABASE ... STRATEGY FILE_COPY takes two,
// DROP DATABASE one, some 0.3 s each on a quiet server and over a second with three workers and
// other runs on it. That was most of a small file's time on PostgreSQL (a search file of three tests:
// 0.4 s on SQLite, 7 s on PostgreSQL), so neither is waited for: each worker copies the template for
// its next file while the current one runs, and drops a finished file's database in the background.
// The global setup drops what the run's workers left (test/setup/postgres-template.ts).
//
// Those commands go through one small pool per worker: a new connection to the server for each was
// two or three connections a file, and on this project's virtual machines starting and ending a
// PostgreSQL backend costs about 40 ms of the server's CPU (the fork's copy-on-write faults), some
// 35 s of server CPU over the suite for nothing.

/** A new scratch database's name: the run's prefix and a random part. */
export function scratchName(): string {
  return `${inject('postgresScratchPrefix') || scratchPrefix(process.pid)}${randomBytes(4).toString('hex')}`;
}

/** The copy of the template made ahead for this worker's next file (files share the worker's modules). */
let spare: { template: string; name: Promise<string> } | undefined;

function copyOf(adminUrl: string, template: string): Promise<string> {
  const name = scratchName();
  const admin = adminPool(adminUrl);
  return cloneStatement(admin, template, name)
    .then((statement) => admin.query(statement))
    .then(() => admin.query(WITHOUT_JIT(name)))
    .then(() => name);
}

/**
 * The server's JIT compiles a statement whose plan it estimates costly (jit_above_cost) to machine
 * code before running it: tens to hundreds of milliseconds of CPU for statements that run in a few.
 * A test's tables are bulk-loaded without statistics, so its searches were estimated costly and
 * compiled (search/exact-title's last three tests: 1.9-2.5 s with JIT, 1.2-1.5 s without). A setting
 * of the scratch database, so every connection to it has it: the app's, a second worker's, a command
 * line's. It changes no result.
 */
export const WITHOUT_JIT = (name: string) => `alter database ${name} set jit = off`;

/** A copy of `template` of the caller's own: the one made ahead if it is ready to take, and the next one begun. */
export async function takeCopy(adminUrl: string, template: string): Promise<string> {
  const ahead = spare?.template === template ? spare.name : undefined;
  const next = copyOf(adminUrl, template);
  // Its failure shows when a file takes it, which then makes a copy of its own.
  next.catch(() => {});
  spare = { template, name: next };
  if (ahead) {
    const name = await ahead.catch(() => undefined);
    if (name) return name;
  }
  return copyOf(adminUrl, template);
}

/** Drops a scratch database without waiting for it; one that fails is left to the global setup. */
export function dropInBackground(adminUrl: string, name: string): void {
  void adminQuery(adminUrl, `drop database if exists ${name} with (force)`).catch(() => {});
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  await adminPool(url).query(sql);
}

/** Connections to the server's admin database, kept for the worker's life (see the top of this file). */
const adminPools = new Map<string, pg.Pool>();

function adminPool(url: string): pg.Pool {
  let pool = adminPools.get(url);
  if (!pool) {
    // Three: a file's create or drop, the copy made ahead and a background drop may run at once. Idle
    // connections are kept (no idle timeout), and hold no worker open at its end (allowExitOnIdle).
    pool = new pg.Pool({ connectionString: url, max: 3, idleTimeoutMillis: 0, allowExitOnIdle: true });
    // A kept connection the server ends (a restart) emits 'error'; the pool replaces it on the next query.
    pool.on('error', () => {});
    adminPools.set(url, pool);
  }
  return pool;
}

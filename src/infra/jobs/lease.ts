import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

// A periodic task (the order sweep) must never run twice at once, also across worker processes.
// The lease is a row of `job_lease`: taken in one statement (a new row, or an expired one taken
// over), renewed while the run goes on, removed at its end. A process that crashed stops renewing
// it and it expires. A table row rather than an advisory lock, so it works the same on both engines.

const RENEW_EVERY_MS = 15_000;

export interface LeaseOptions {
  /** How long the lease lives without renewal: how long a crashed run blocks the next one. */
  ttlMs: number;
  /** The run's time (Unix ms); the lease's times count from it. */
  now: number;
}

/** Runs `work` holding the lease `name`; `{ ran: false }` at once when another run holds it. */
export async function withLease<T>(
  db: Kysely<Database>,
  name: string,
  options: LeaseOptions,
  work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  const owner = randomUUID();
  const { now, ttlMs } = options;
  const taken = await db
    .insertInto('job_lease')
    .values({ name, owner, expires_at: now + ttlMs })
    .onConflict((conflict) =>
      conflict
        .column('name')
        .doUpdateSet({ owner, expires_at: now + ttlMs })
        .where('job_lease.expires_at', '<=', now),
    )
    .returning('owner')
    .executeTakeFirst();
  if (taken?.owner !== owner) return { ran: false };
  // Renewed from the run's own time plus what has elapsed, so a run given a test's clock keeps it too.
  const started = performance.now();
  const renew = setInterval(
    () => {
      db.updateTable('job_lease')
        .set({ expires_at: Math.round(now + (performance.now() - started) + ttlMs) })
        .where('name', '=', name)
        .where('owner', '=', owner)
        .execute()
        .catch(() => {});
    },
    Math.min(RENEW_EVERY_MS, ttlMs / 4),
  );
  renew.unref();
  try {
    return { ran: true, result: await work() };
  } finally {
    clearInterval(renew);
    // Should this fail (the database went away), the row expires like a crashed process's.
    await db
      .deleteFrom('job_lease')
      .where('name', '=', name)
      .where('owner', '=', owner)
      .execute()
      .catch(() => {});
  }
}

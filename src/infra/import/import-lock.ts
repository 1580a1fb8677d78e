import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { toRfc3339 } from '../../db/time.js';
import { systemClock, type Clock } from '../clock.js';
import { ImportRefusedError } from './ndjson-import.js';

// Imports of one kind run one at a time, over every process that shares the database (the CLI and
// any number of API processes): two product feeds at once would deactivate each other's products,
// and two upserts of one code would race. The lock is a row of `import_lock`, renewed while the
// import runs; a process that crashed stops renewing it, and it expires. A table row rather than
// an advisory lock, because it works the same on SQLite and PostgreSQL.

/** How long a lock lives without being renewed: how long a crashed import blocks its kind. */
export const IMPORT_LOCK_TTL_MS = 60_000;
const RENEW_EVERY_MS = 15_000;

/**
 * Another import of the same kind is running; nothing was read or written. The message says when
 * its lock lapses: a live import renews it, but one whose process crashed holds the kind until then.
 */
export class ImportRunningError extends ImportRefusedError {
  constructor(
    readonly kind: string,
    readonly startedAt: number,
    /** When the holder's lock expires unless it is renewed. */
    readonly expiresAt: number,
  ) {
    // Whole seconds, rounded up: "after" the time given, the lock has lapsed.
    super('import.running', { kind, since: toRfc3339(startedAt), until: toRfc3339(Math.ceil(expiresAt / 1000) * 1000) });
    this.name = 'ImportRunningError';
  }
}

/** Runs `work` holding the lock of `kind`; throws ImportRunningError at once when another run holds it. */
export async function withImportLock<T>(
  db: Kysely<Database>,
  kind: string,
  work: () => Promise<T>,
  ttlMs = IMPORT_LOCK_TTL_MS,
  clock: Clock = systemClock,
): Promise<T> {
  const owner = randomUUID();
  await acquire(db, kind, owner, ttlMs, clock);
  const renew = setInterval(
    () => {
      // A failed renewal is retried at the next tick; the lock expires only if they all fail.
      db.updateTable('import_lock')
        .set({ expires_at: clock.now() + ttlMs })
        .where('kind', '=', kind)
        .where('owner', '=', owner)
        .execute()
        .catch(() => {});
    },
    Math.min(RENEW_EVERY_MS, ttlMs / 4),
  );
  renew.unref();
  try {
    return await work();
  } finally {
    clearInterval(renew);
    // Should this fail (the database went away), the row expires like a crashed process's.
    await db
      .deleteFrom('import_lock')
      .where('kind', '=', kind)
      .where('owner', '=', owner)
      .execute()
      .catch(() => {});
  }
}

async function acquire(db: Kysely<Database>, kind: string, owner: string, ttlMs: number, clock: Clock): Promise<void> {
  // Twice: the holder may finish between the insert and the look at its row.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const now = clock.now();
    const lock = { owner, started_at: now, expires_at: now + ttlMs };
    // One statement: a new row, or an expired one taken over; another process's live row stays.
    const taken = await db
      .insertInto('import_lock')
      .values({ kind, ...lock })
      .onConflict((conflict) => conflict.column('kind').doUpdateSet(lock).where('import_lock.expires_at', '<=', now))
      .returning('owner')
      .executeTakeFirst();
    if (taken) return;
    const holder = await db.selectFrom('import_lock').select(['started_at', 'expires_at']).where('kind', '=', kind).executeTakeFirst();
    if (holder) throw new ImportRunningError(kind, holder.started_at, holder.expires_at);
  }
  // The row changed hands twice while we looked: some import holds it, for at most one lifetime.
  throw new ImportRunningError(kind, clock.now(), clock.now() + ttlMs);
}

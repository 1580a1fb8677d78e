import { sql, type Kysely } from 'kysely';
import { expect } from 'vitest';
import type { Database } from '../../src/db/schema.js';

// The outbox's index of addresses (job_email, migration 0400) against what the jobs' payloads hold,
// read by JavaScript: the oracle the index and "your data" are checked with.

export interface StoredJob {
  id: number;
  type: string;
  status: string;
  payload: string;
}

export async function storedJobs(db: Kysely<Database>): Promise<StoredJob[]> {
  const rows = await db.selectFrom('job').select(['id', 'type', 'status', 'payload']).orderBy('id').execute();
  return rows.map((job) => ({ ...job, id: Number(job.id) }));
}

/** Every string value of a JSON payload (none when it is not JSON). */
export function payloadStrings(payload: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return [];
  }
  const found: string[] = [];
  const walk = (item: unknown) => {
    if (typeof item === 'string') found.push(item);
    else if (Array.isArray(item)) item.forEach(walk);
    else if (item !== null && typeof item === 'object') Object.values(item).forEach(walk);
  };
  walk(value);
  return found;
}

/** The jobs that name `email`: a string value equal to it, trimmed and in any case (the erasure's own rule). */
export const jobsNaming = (jobs: StoredJob[], email: string) =>
  jobs.filter((job) => payloadStrings(job.payload).some((value) => value.trim().toLowerCase() === email.trim().toLowerCase()));

/** job_email holds exactly what the payloads name: each string with an '@' (up to 320 characters), trimmed and lower-cased, once per job. */
export async function expectIndexMatchesPayloads(db: Kysely<Database>): Promise<void> {
  const expected = new Set<string>();
  for (const job of await storedJobs(db))
    for (const value of payloadStrings(job.payload))
      if (value.includes('@') && value.trim().length <= 320) expected.add(`${job.id} ${value.trim().toLowerCase()}`);
  const rows = await db.selectFrom('job_email').select(['job_id', 'email']).execute();
  expect(rows.map((row) => `${Number(row.job_id)} ${row.email}`).sort()).toEqual([...expected].sort());
}

/** A job written by plain SQL, as a process of an earlier build (or a repair by hand) writes one. Returns its id. */
export async function writeJobBySql(db: Kysely<Database>, type: string, payload: string, now = Date.now()): Promise<number> {
  const row = await sql<{ id: number }>`insert into job (type, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    values (${type}, ${payload}, 'pending', 0, 5, ${now}, ${now}, ${now}) returning id`.execute(db);
  return Number(row.rows[0]!.id);
}

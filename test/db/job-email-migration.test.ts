import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import * as jobEmailMigration from '../../src/db/migrations/2026_11_29_0400_index_job_emails.js';
import { enqueueJob } from '../../src/infra/jobs/queue.js';
import { expectIndexMatchesPayloads, writeJobBySql } from '../helpers/job-emails.js';
import { engine, openMigratedScratch } from '../helpers/test-app.js';

// Migration 0400 (job_email and the triggers on job that keep it) goes down and up again on both
// engines: up lists the addresses of the jobs written before it, whatever wrote them, and the
// triggers list those written after.

let database: DatabaseHandle;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ database, close } = await openMigratedScratch());
});
afterAll(async () => close());

async function tables(): Promise<string[]> {
  return (await database.db.introspection.getTables()).map((table) => table.name);
}

async function triggersOnJob(): Promise<string[]> {
  const query =
    database.engine === 'sqlite'
      ? sql<{ name: string }>`select name from sqlite_master where type = 'trigger' and tbl_name = 'job' order by name`
      : sql<{ name: string }>`select tgname as name from pg_trigger where tgrelid = 'job'::regclass and not tgisinternal order by tgname`;
  return (await query.execute(database.db)).rows.map((row) => row.name);
}

describe(`migration 2026_11_29_0400_index_job_emails on ${engine}`, () => {
  it('goes down and up again; up lists the addresses of the jobs that were there before it', async () => {
    const db = database.db;
    const queued = (payload: Record<string, unknown>) => enqueueJob(db, { type: 'account.mail', payload }, { maxAttempts: 3 });
    await queued({ kind: 'resetRequest', email: 'before@example.ee', storeCode: 'WEB', language: 'et' });
    expect(await tables()).toContain('job_email');
    expect(await triggersOnJob()).toEqual(['job_email_added', 'job_email_payload_changed']);

    await jobEmailMigration.down(db);
    expect(await tables()).not.toContain('job_email');
    expect(await triggersOnJob()).toEqual([]);
    // Written while the schema is the one before: by this build's queue and by plain SQL (spaces,
    // capitals, nested, twice in one job), one not JSON, and one that jsonb refuses (a lone surrogate).
    await queued({ kind: 'registration', form: { email: 'Reg@Example.ee' }, storeCode: 'WEB', language: 'et' });
    await writeJobBySql(
      db,
      'legacy.mail',
      JSON.stringify({ to: '  OLD@example.ee ', list: [{ cc: 'old@example.ee' }, 'not an address'], n: 3 }),
    );
    await writeJobBySql(db, 'legacy.broken', '{"to":"broken@example.ee"');
    await writeJobBySql(db, 'contact.mail', JSON.stringify({ message: { email: 'Surrogate@Example.ee', message: 'Tere \ud800' } }));
    await writeJobBySql(db, 'order.mail', JSON.stringify({ orderId: 7, recipient: 'buyer' }));

    await jobEmailMigration.up(db);
    expect(await triggersOnJob()).toEqual(['job_email_added', 'job_email_payload_changed']);
    const listed = await db.selectFrom('job_email').select('email').orderBy('email').execute();
    expect(listed.map((row) => row.email)).toEqual(['before@example.ee', 'old@example.ee', 'reg@example.ee', 'surrogate@example.ee']);
    await expectIndexMatchesPayloads(db);
    // And the triggers list what comes after.
    await queued({ kind: 'resetRequest', email: 'after@example.ee', storeCode: 'WEB', language: 'et' });
    await expectIndexMatchesPayloads(db);
    expect(await db.selectFrom('job_email').select('email').where('email', '=', 'after@example.ee').execute()).toHaveLength(1);
  });
});

import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { enqueueJob, jobBacklog } from '../../src/infra/jobs/queue.js';
import { planOfStatement, recordingStatements, rowsReadOfStatement } from '../helpers/query-plans.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { sample, scrape } from './metrics-text.js';

// With WORKER=off and no `storefront worker` the outbox's jobs wait for good and nothing said which:
// /metrics tells, per job type, how many are pending, running and dead and how long the oldest due
// one has waited, read at the scrape in one statement through an index (queue.ts: jobBacklog). The
// test app runs no worker of its own: jobs run only when a test drains them.

const TOKEN = 'metrics-token-0123456789abcdef';
// The worker's claims read the app's clock too: what the test clock makes due is due to them.
const START = Date.now() - 86_400_000;
const clock = fixedClock(START);
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { METRICS_TOKEN: TOKEN, WORKER: 'off' }, clock });
});
afterAll(() => t?.close());

const byType = async (type: string) => {
  const text = await scrape(t, TOKEN);
  return {
    pending: sample(text, 'storefront_jobs_by_type', { type, status: 'pending' }),
    running: sample(text, 'storefront_jobs_by_type', { type, status: 'running' }),
    dead: sample(text, 'storefront_jobs_by_type', { type, status: 'dead' }),
    age: sample(text, 'storefront_job_oldest_due_age_seconds_by_type', { type }),
    allPending: sample(text, 'storefront_jobs', { status: 'pending' }),
    allAge: sample(text, 'storefront_job_oldest_due_age_seconds'),
  };
};

it("shows a type's pending jobs no worker runs and the age of its oldest due one, growing with the clock", async () => {
  const registered = await t.app.inject({
    method: 'POST',
    url: '/auth/register-simple',
    headers: { store: 'WEB' },
    payload: { email: 'waiting-mail@raamat.ee', firstName: 'Mari', lastName: 'Maasikas' },
  });
  expect(registered.statusCode).toBe(200);
  expect(await byType('account.mail')).toMatchObject({ pending: 1, running: 0, dead: 0, age: 0 });

  clock.advance(5 * 60_000);
  // A job queued for later (a backoff, a reminder) is pending but waits for nothing yet.
  await enqueueJob(
    t.database.db,
    { type: 'account.mail', payload: {}, runAt: clock.now() + 3_600_000 },
    { maxAttempts: 8, now: clock.now() },
  );
  const waiting = await byType('account.mail');
  expect(waiting).toMatchObject({ pending: 2, running: 0, dead: 0, age: 300 });
  expect(waiting.allPending).toBeGreaterThanOrEqual(2);
  expect(waiting.allAge).toBeGreaterThanOrEqual(300);

  clock.advance(60_000);
  expect(await byType('account.mail')).toMatchObject({ pending: 2, age: 360 });

  // A worker runs the due one: the later one is left, due in the future, age 0.
  await t.drainJobs();
  expect(await byType('account.mail')).toMatchObject({ pending: 1, running: 0, dead: 0, age: 0 });
});

it('counts the jobs that failed for good per type, and drops a type none of whose jobs is left', async () => {
  const type = 'metrics-test.no-handler';
  expect(await byType(type)).toEqual(expect.objectContaining({ pending: undefined, dead: undefined, age: undefined }));
  for (let i = 0; i < 2; i += 1) {
    await enqueueJob(
      t.database.db,
      { type, payload: {}, runAt: clock.now() - 90_000, maxAttempts: 1 },
      { maxAttempts: 1, now: clock.now() },
    );
  }
  expect(await byType(type)).toMatchObject({ pending: 2, running: 0, dead: 0, age: 90 });
  // No handler: each job's one attempt fails and it is dead.
  await t.drainJobs();
  expect(await byType(type)).toMatchObject({ pending: 0, running: 0, dead: 2, age: undefined });
  await t.database.db.updateTable('job').set({ status: 'done' }).where('type', '=', type).execute();
  expect(await byType(type)).toMatchObject({ pending: undefined, running: undefined, dead: undefined, age: undefined });
});

it("counts a running job whose claim ran out (its worker stopped) as due since then, as a worker's take-over does", async () => {
  const type = 'metrics-test.orphaned';
  const queuedAt = clock.now() - 3_600_000;
  const id = await enqueueJob(t.database.db, { type, payload: {} }, { maxAttempts: 8, now: queuedAt });
  // A worker claimed it and stopped (killed in a deploy, WORKER=off since): its claim ran out 10 minutes ago.
  const claimed = (lockedUntil: number) =>
    t.database.db.updateTable('job').set({ status: 'running', attempts: 1, locked_until: lockedUntil }).where('id', '=', id).execute();
  await claimed(clock.now() - 600_000);
  expect(await byType(type)).toMatchObject({ pending: 0, running: 1, dead: 0, age: 600 });
  expect((await byType(type)).allAge).toBeGreaterThanOrEqual(600);
  // A job whose worker still renews its claim waits for nothing.
  await claimed(clock.now() + 60_000);
  expect(await byType(type)).toMatchObject({ pending: 0, running: 1, dead: 0, age: 0 });
  await t.database.db.updateTable('job').set({ status: 'done', locked_until: null }).where('id', '=', id).execute();
});

it('reads the outbox in one statement through job_status_type_run_at_idx, no scan of the table', async () => {
  const { db, statements } = recordingStatements(t.database.db);
  await jobBacklog(db, clock.now());
  // On PostgreSQL after the `set local`s that keep its counts on the index (queue.ts).
  const reads = statements.filter((statement) => !/^set local /.test(statement.sql));
  expect(reads).toHaveLength(1);
  const plan = await planOfStatement(t.database.db, reads[0]!);
  expect(plan, plan).toContain('job_status_type_run_at_idx');
  // SQLite reads the index alone. PostgreSQL picks an index-only scan of it on a large, vacuumed
  // outbox (500,000 done jobs, 3,000 others: see the commit) and a bitmap scan on this small one.
  if (t.database.engine === 'sqlite') expect(plan, plan).toMatch(/COVERING INDEX job_status_type_run_at_idx/);
  expect(plan, plan).not.toMatch(/Seq Scan|(^|\n)\s*SCAN job\b/);
});

// docs/deployment.md: a type's count of one status stops at 10,000 ("10000 means at least").
const COUNTED_UP_TO = 10_000;

it('counts at most 10,000 jobs of a type and status, so a backlog costs a scrape no more as it grows, and keeps the oldest due age exact', async () => {
  // A mail server's outage: its mails pile up past the cap, the oldest due 2 hours ago, the rest since.
  const type = 'metrics-test.flood';
  const flood = COUNTED_UP_TO + 2_000;
  const oldestDue = clock.now() - 7_200_000;
  await sql`
    with recursive n (i) as (select 0 union all select i + 1 from n where i < ${flood - 1})
    insert into job (type, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    select ${type}, '{}', 'pending', 1, 8, cast(${oldestDue} as bigint) + i * 100, ${oldestDue}, ${oldestDue} from n`.execute(
    t.database.db,
  );
  const waiting = await byType(type);
  expect(waiting).toMatchObject({ pending: COUNTED_UP_TO, running: 0, dead: 0, age: 7200 });
  expect(waiting.allPending).toBeGreaterThanOrEqual(COUNTED_UP_TO);
  expect(waiting.allAge).toBeGreaterThanOrEqual(7200);

  if (engine === 'postgres') {
    // What the statement read, not how long it took: at most the cap of any one type and status,
    // and in all the cap and a few rows for each other job (this file's: a handful), not the flood.
    await sql`analyze job`.execute(t.database.db);
    const { db, statements } = recordingStatements(t.database.db);
    await jobBacklog(db, clock.now());
    const settings = statements.filter((statement) => /^set local /.test(statement.sql));
    const reads = statements.filter((statement) => !/^set local /.test(statement.sql));
    expect(reads).toHaveLength(1);
    const read = await rowsReadOfStatement(t.database.db, reads[0]!, 'job', settings);
    const others = await t.database.db
      .selectFrom('job')
      .select((eb) => eb.fn.countAll().as('count'))
      .where('type', '!=', type)
      .executeTakeFirstOrThrow();
    expect(read.mostInOneLoop, read.steps.join('\n')).toBeLessThanOrEqual(COUNTED_UP_TO);
    expect(read.total, read.steps.join('\n')).toBeLessThanOrEqual(COUNTED_UP_TO + 10 + 3 * Number(others.count));
  }
  await t.database.db.deleteFrom('job').where('type', '=', type).execute();
  expect(await byType(type)).toMatchObject({ pending: undefined, age: undefined });
});

it('tells the jobs of a type that failed for good in the last hour, also once its dead are past the count', async () => {
  // Dead jobs are kept until retried: after an outage killed 10,000 of a type its dead count stays at the
  // cap, and an alert on that count going up never fires again (found by the review of the cap). What
  // died in the last hour still moves (docs/deployment.md's StorefrontJobsDead).
  const type = 'metrics-test.dead-flood';
  const longAgo = clock.now() - 7 * 86_400_000;
  await sql`
    with recursive n (i) as (select 0 union all select i + 1 from n where i < ${COUNTED_UP_TO - 1})
    insert into job (type, payload, status, attempts, max_attempts, run_at, created_at, updated_at)
    select ${type}, '{}', 'dead', 8, 8, cast(${longAgo} as bigint) + i, ${longAgo}, ${longAgo} from n`.execute(t.database.db);
  const died = async () => sample(await scrape(t, TOKEN), 'storefront_jobs_died_last_hour_by_type', { type });
  expect(await byType(type)).toMatchObject({ dead: COUNTED_UP_TO });
  expect(await died()).toBeUndefined();
  // Another of the type fails for good (no handler: its one attempt fails).
  await enqueueJob(t.database.db, { type, payload: {}, runAt: clock.now(), maxAttempts: 1 }, { maxAttempts: 1, now: clock.now() });
  await t.drainJobs();
  expect(await byType(type)).toMatchObject({ dead: COUNTED_UP_TO });
  expect(await died()).toBe(1);
  // An hour on, it is no longer news.
  clock.advance(3_600_001);
  expect(await died()).toBeUndefined();
  await t.database.db.deleteFrom('job').where('type', '=', type).execute();
});

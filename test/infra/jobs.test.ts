import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CliUsageError } from '../../src/infra/cli-usage.js';
import { systemClock } from '../../src/infra/clock.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { jobsCommand } from '../../src/infra/jobs/jobs.cli.js';
import { countJobsByStatus, enqueueJob, listJobs, retryJob, type JobRow } from '../../src/infra/jobs/queue.js';
import { deadIfRefused, PermanentJobFailure, RefusedForGood } from '../../src/infra/jobs/refused-for-good.js';
import { createWorker, type JobHandlers } from '../../src/infra/jobs/worker.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';
import { recordingLogger } from '../helpers/logger.js';

let database: DatabaseHandle;
let url: string;
let drop: () => Promise<void>;
beforeAll(async () => {
  const scratch = await migratedScratchDatabase();
  ({ url, drop } = scratch);
  database = createDatabase(url);
  await migrateToLatest(database);
});
afterAll(async () => {
  await database.close();
  await drop();
});
beforeEach(async () => {
  await database.db.deleteFrom('job').execute();
});

const defaults = { maxAttempts: 3 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const job = (id: number): Promise<JobRow> => database.db.selectFrom('job').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const worker = (handlers: JobHandlers, extra: Partial<Parameters<typeof createWorker>[0]> = {}) =>
  createWorker({ database, handlers, log: recordingLogger().log, pollIntervalMs: 10, clock: systemClock, ...extra });

describe(`the job queue on ${engine}`, () => {
  it('writes a job only when the transaction that enqueues it commits', async () => {
    await expect(
      database.db.transaction().execute(async (trx) => {
        await enqueueJob(trx, { type: 'mail', payload: { to: 'a@example.com' } }, defaults);
        throw new Error('the state change failed');
      }),
    ).rejects.toThrow('the state change failed');
    expect(await listJobs(database.db, { limit: 10 })).toEqual([]);

    const id = await database.db
      .transaction()
      .execute((trx) => enqueueJob(trx, { type: 'mail', payload: { to: 'a@example.com' }, maxAttempts: 5 }, { ...defaults, now: 1000 }));
    expect(typeof id).toBe('number');
    expect(await job(id)).toMatchObject({
      type: 'mail',
      payload: '{"to":"a@example.com"}',
      status: 'pending',
      attempts: 0,
      max_attempts: 5,
      run_at: 1000,
      created_at: 1000,
      locked_until: null,
      last_error: null,
      result: null,
    });
  });

  it('runs a job once and records the result its handler returns', async () => {
    const calls: unknown[] = [];
    const id = await enqueueJob(database.db, { type: 'mail', payload: { n: 1 } }, defaults);
    const w = worker({
      mail: async (payload, context) => {
        calls.push({ payload, job: context.job });
        return 'skipped';
      },
    });
    expect(await w.drain()).toBe(1);
    expect(await w.drain()).toBe(0);
    expect(calls).toEqual([{ payload: { n: 1 }, job: { id, type: 'mail', attempts: 1, createdAt: expect.any(Number) } }]);
    expect(await job(id)).toMatchObject({ status: 'done', attempts: 1, result: 'skipped', locked_until: null });
  });

  it('retries a failing job with backoff and keeps it as dead after the last attempt', async () => {
    let clock = Date.now();
    const { log, lines } = recordingLogger();
    let calls = 0;
    const w = createWorker({
      database,
      log,
      pollIntervalMs: 10,
      clock: { now: () => clock },
      backoffMs: (attempt) => attempt * 1000,
      handlers: {
        flaky: async () => {
          calls += 1;
          throw new Error(`boom ${calls}`);
        },
      },
    });
    const id = await enqueueJob(database.db, { type: 'flaky', payload: {} }, { maxAttempts: 3, now: clock });

    expect(await w.drain()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 1, run_at: clock + 1000, last_error: 'boom 1', locked_until: null });
    expect(await w.drain()).toBe(0); // not due yet
    clock += 1000;
    expect(await w.drain()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 2, run_at: clock + 2000, last_error: 'boom 2' });
    expect(await w.drain({ includeDelayed: true })).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'dead', attempts: 3, last_error: 'boom 3', locked_until: null });
    expect(await w.drain({ includeDelayed: true })).toBe(0);
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
    expect(await countJobsByStatus(database.db)).toEqual({ pending: 0, running: 0, done: 0, dead: 1 });
  });

  it('ends a job refused for good at once as done, with its result and the refusal as its last error, even when wrapped', async () => {
    const { log, lines } = recordingLogger();
    const calls: string[] = [];
    const refusal = () => new RefusedForGood('550 5.1.1 No such user', 'refused: no such mailbox');
    const w = createWorker({
      database,
      log,
      pollIntervalMs: 10,
      clock: systemClock,
      handlers: {
        refused: async () => {
          calls.push('refused');
          throw refusal();
        },
        wrapped: async () => {
          calls.push('wrapped');
          throw new Error('the welcome mail was not sent', { cause: refusal() });
        },
      },
    });
    const refused = await enqueueJob(database.db, { type: 'refused', payload: {} }, defaults);
    const wrapped = await enqueueJob(database.db, { type: 'wrapped', payload: {} }, defaults);
    expect(await w.drain({ includeDelayed: true })).toBe(2);
    expect(calls).toEqual(['refused', 'wrapped']);
    for (const id of [refused, wrapped]) {
      expect(await job(id)).toMatchObject({
        status: 'done',
        attempts: 1,
        result: 'refused: no such mailbox',
        last_error: '550 5.1.1 No such user',
        locked_until: null,
      });
    }
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.filter((line) => line.msg === 'job refused for good; not retried')).toHaveLength(2);
  });

  it("keeps a job as dead at once when it fails for good, a refusal made the operators' included; others are retried", async () => {
    const { log, lines } = recordingLogger();
    const w = createWorker({
      database,
      log,
      pollIntervalMs: 10,
      clock: systemClock,
      handlers: {
        broken: async () => {
          throw new PermanentJobFailure('the template is missing');
        },
        office: () =>
          deadIfRefused(Promise.reject(new RefusedForGood('550 5.1.1 No such user', 'refused')), "the office's address is wrong"),
        busy: () => deadIfRefused(Promise.reject(new Error('451 Try again later')), 'not this'),
      },
    });
    const broken = await enqueueJob(database.db, { type: 'broken', payload: {} }, defaults);
    const office = await enqueueJob(database.db, { type: 'office', payload: {} }, defaults);
    const busy = await enqueueJob(database.db, { type: 'busy', payload: {} }, defaults);
    expect(await w.drain()).toBe(3);
    expect(await job(broken)).toMatchObject({ status: 'dead', attempts: 1, last_error: 'the template is missing', result: null });
    expect(await job(office)).toMatchObject({
      status: 'dead',
      attempts: 1,
      last_error: "the office's address is wrong: 550 5.1.1 No such user",
    });
    expect(await job(busy)).toMatchObject({ status: 'pending', attempts: 1, last_error: '451 Try again later' });
    expect(lines.filter((line) => line.msg === 'job failed for good and is dead')).toHaveLength(2);
  });

  it('keeps the first 2000 characters of an error message', async () => {
    const id = await enqueueJob(database.db, { type: 'long', payload: {}, maxAttempts: 1 }, defaults);
    await worker({
      long: async () => {
        throw new Error('x'.repeat(5000));
      },
    }).drain();
    expect((await job(id)).last_error).toHaveLength(2000);
  });

  it('brings a dead job back with retryJob, and it then succeeds', async () => {
    let fail = true;
    const w = worker({
      once: async () => {
        if (fail) throw new Error('down');
        return 'sent';
      },
    });
    const id = await enqueueJob(database.db, { type: 'once', payload: {}, maxAttempts: 1 }, defaults);
    await w.drain();
    expect((await job(id)).status).toBe('dead');

    expect(await retryJob(database.db, id)).toBe(true);
    expect(await job(id)).toMatchObject({ status: 'pending', attempts: 0, last_error: 'down' });
    expect(await retryJob(database.db, id)).toBe(false); // already pending
    expect(await retryJob(database.db, id + 1000)).toBe(false);
    fail = false;
    expect(await w.drain()).toBe(1);
    expect(await job(id)).toMatchObject({ status: 'done', attempts: 1, result: 'sent' });
  });

  it('fails a job of an unknown type until it is dead, saying why', async () => {
    const id = await enqueueJob(database.db, { type: 'no.such.type', payload: {}, maxAttempts: 2 }, defaults);
    expect(await worker({}).drain({ includeDelayed: true })).toBe(2);
    expect(await job(id)).toMatchObject({ status: 'dead', attempts: 2, last_error: 'no handler for job type "no.such.type"' });
  });

  it('takes over a job whose worker died (its lock expired), and leaves a live lock alone', async () => {
    const now = Date.now();
    const row = { payload: '{}', max_attempts: 3, last_error: null, result: null, created_at: now, updated_at: now };
    const { id: crashed } = await database.db
      .insertInto('job')
      .values({ ...row, type: 'ok', status: 'running', attempts: 1, run_at: now - 60_000, locked_until: now - 1 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { id: live } = await database.db
      .insertInto('job')
      .values({ ...row, type: 'ok', status: 'running', attempts: 1, run_at: now - 60_000, locked_until: now + 60_000 })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(await worker({ ok: async () => 'ok' }).drain()).toBe(1);
    expect(await job(crashed)).toMatchObject({ status: 'done', attempts: 2 });
    expect(await job(live)).toMatchObject({ status: 'running', attempts: 1 });
  });

  it('keeps a job as dead instead of taking it over again when its worker died during the last attempt', async () => {
    // A job that takes its worker down with it (out of memory, a deploy that kills it each time) was
    // taken over every time its lock expired, past its max attempts, each time killing the next worker.
    const now = Date.now();
    const { id } = await database.db
      .insertInto('job')
      .values({
        type: 'poison',
        payload: '{}',
        status: 'running',
        attempts: 3,
        max_attempts: 3,
        run_at: now - 60_000,
        locked_until: now - 1,
        last_error: 'boom 2',
        result: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    let calls = 0;
    const { log, lines } = recordingLogger();
    const w = worker({ poison: async () => void (calls += 1) }, { log });
    await w.drain();
    expect(calls).toBe(0);
    expect(await job(id)).toMatchObject({ status: 'dead', attempts: 3, locked_until: null });
    expect((await job(id)).last_error).toMatch(/worker stopped during its last attempt/);
    expect(lines.filter((line) => line.level === 'error')).toHaveLength(1);
    expect(await w.drain()).toBe(0);
  });

  it('renews the claim of a job running longer than its lock: another worker does not take it over meanwhile', async () => {
    // Two pools on PostgreSQL so the second worker's claims really race; on SQLite one handle is one database.
    const other = engine === 'postgres' ? createDatabase(url) : database;
    try {
      let calls = 0;
      const slow: JobHandlers = {
        slow: async () => {
          calls += 1;
          await sleep(2_100);
        },
      };
      const id = await enqueueJob(database.db, { type: 'slow', payload: {} }, defaults);
      // A lock long enough that a renewal (every third of it) is not missed when the whole suite
      // loads the machine: with 200 ms, a stall of the event loop past it let the second take over.
      const first = createWorker({
        database,
        handlers: slow,
        log: recordingLogger().log,
        pollIntervalMs: 10,
        lockMs: 600,
        clock: systemClock,
      });
      const second = createWorker({
        database: other,
        handlers: slow,
        log: recordingLogger().log,
        pollIntervalMs: 10,
        lockMs: 600,
        clock: systemClock,
      });
      const running = first.drain();
      // The second polls all along the first's run, three times its lock of 600 ms.
      let taken = 0;
      for (let i = 0; i < 13; i += 1) {
        await sleep(150);
        taken += await second.drain();
      }
      await running;
      expect(taken).toBe(0);
      expect(calls).toBe(1);
      expect(await job(id)).toMatchObject({ status: 'done', attempts: 1 });
    } finally {
      if (other !== database) await other.close();
    }
  });

  it('runs each job exactly once with two workers draining at the same time', async () => {
    // Two pools on PostgreSQL so the claims really race; on SQLite one handle is one database.
    const other = engine === 'postgres' ? createDatabase(url) : database;
    try {
      const calls = new Map<number, number>();
      const handlers = (busy: { now: number; max: number }): JobHandlers => ({
        count: async (_payload, { job: { id } }) => {
          busy.max = Math.max(busy.max, ++busy.now);
          calls.set(id, (calls.get(id) ?? 0) + 1);
          await sleep(Math.random() * 5);
          busy.now -= 1;
        },
      });
      const busyA = { now: 0, max: 0 };
      const busyB = { now: 0, max: 0 };
      const ids: number[] = [];
      for (let i = 0; i < 30; i += 1) ids.push(await enqueueJob(database.db, { type: 'count', payload: { i } }, defaults));
      const a = createWorker({ database, handlers: handlers(busyA), log: recordingLogger().log, pollIntervalMs: 10, clock: systemClock });
      const b = createWorker({
        database: other,
        handlers: handlers(busyB),
        log: recordingLogger().log,
        pollIntervalMs: 10,
        clock: systemClock,
      });
      const [ranA, ranB] = await Promise.all([a.drain(), b.drain()]);
      expect(ranA + ranB).toBe(30);
      expect(ranA).toBeGreaterThan(0);
      expect(ranB).toBeGreaterThan(0);
      expect([...calls.keys()].sort((x, y) => x - y)).toEqual(ids);
      expect([...calls.values()].every((count) => count === 1)).toBe(true);
      expect([busyA.max, busyB.max]).toEqual([1, 1]); // one job at a time per worker
      expect(await countJobsByStatus(database.db)).toEqual({ pending: 0, running: 0, done: 30, dead: 0 });
    } finally {
      if (other !== database) await other.close();
    }
  });

  it('polls for new jobs, survives a failing poll, and stop() waits for the job in hand', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const started: number[] = [];
    let explode = true;
    const { log, lines } = recordingLogger();
    const w = createWorker({
      database,
      log,
      pollIntervalMs: 10,
      // The first poll fails as if the database were unreachable.
      clock: {
        now: () => {
          if (explode) {
            explode = false;
            throw new Error('database unreachable');
          }
          return Date.now();
        },
      },
      handlers: {
        slow: async (_payload, { job: { id } }) => {
          started.push(id);
          await gate;
          return 'finished';
        },
      },
    });
    w.start();
    const id = await enqueueJob(database.db, { type: 'slow', payload: {} }, defaults);
    while (started.length === 0) await sleep(5);
    expect(lines.some((line) => line.level === 'error' && line.msg?.includes('could not claim'))).toBe(true);

    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await sleep(50);
    expect(stopped).toBe(false);
    expect((await job(id)).status).toBe('running');
    release();
    await stopping;
    expect(await job(id)).toMatchObject({ status: 'done', result: 'finished' });

    const later = await enqueueJob(database.db, { type: 'slow', payload: {} }, defaults);
    await sleep(50);
    expect((await job(later)).status).toBe('pending');
  });

  it('runs up to `concurrency` jobs at once while polling, each once, and stop() waits for all of them', async () => {
    const gates: Array<() => void> = [];
    const started: number[] = [];
    const w = worker(
      {
        slow: (_payload, { job: { id } }) =>
          new Promise<void>((resolve) => {
            started.push(id);
            gates.push(resolve);
          }),
      },
      { concurrency: 3 },
    );
    const ids: number[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await enqueueJob(database.db, { type: 'slow', payload: { i } }, defaults));
    w.start();
    while (started.length < 3) await sleep(5);
    await sleep(50);
    expect(started).toHaveLength(3); // the fourth waits for room
    expect(await countJobsByStatus(database.db)).toMatchObject({ pending: 2, running: 3 });

    gates.shift()!();
    while (started.length < 4) await sleep(5);
    let stopped = false;
    const stopping = w.stop().then(() => (stopped = true));
    await sleep(50);
    expect(stopped).toBe(false);
    for (const open of gates.splice(0)) open();
    await stopping;
    expect(started).toHaveLength(4); // stop() claimed nothing more
    expect(new Set(started).size).toBe(4);
    expect(started).toEqual(ids.slice(0, 4)); // claimed oldest first, one claim at a time
    expect(await countJobsByStatus(database.db)).toEqual({ pending: 1, running: 0, done: 4, dead: 0 });
  });
});

describe('storefront jobs', () => {
  const run = async (args: string[]) => {
    const lines: string[] = [];
    await jobsCommand(database.db, args, (line) => lines.push(line));
    return lines;
  };

  it('lists jobs newest first with a summary, and retries a dead one', async () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5); // in the past, so both are due
    const done = await enqueueJob(database.db, { type: 'mail.welcome', payload: {} }, { ...defaults, now: at });
    const dead = await enqueueJob(database.db, { type: 'conversion', payload: {}, maxAttempts: 1 }, { ...defaults, now: at });
    await worker({
      'mail.welcome': async () => 'sent',
      conversion: async () => {
        throw new Error(`HTTP 500\n${'e'.repeat(300)}`);
      },
    }).drain();

    const all = await run(['list']);
    expect(all).toHaveLength(3);
    expect(all[0]).toBe(`${dead}\tconversion\tdead\t1/1\t2025-01-02T03:04:05.000Z\tHTTP 500 ${'e'.repeat(191)}`);
    expect(all[1]).toBe(`${done}\tmail.welcome\tdone\t1/3\t2025-01-02T03:04:05.000Z\tsent`);
    expect(all[2]).toBe('pending=0 running=0 done=1 dead=1');
    expect(await run(['list', '--status=dead', '--limit=5'])).toEqual([all[0], all[2]]);
    expect(await run(['list', '--status', 'pending'])).toEqual(['no pending jobs', all[2]]);

    expect(await run(['retry', String(dead)])).toEqual([`job ${dead} is pending again and runs at the next poll of a worker`]);
    expect((await job(dead)).status).toBe('pending');
    await expect(run(['retry', String(dead)])).rejects.toThrow(`job ${dead} is pending, not dead or done: nothing to retry`);
    await expect(run(['retry', String(dead + 1000)])).rejects.toThrow(`no job with id ${dead + 1000}`);
  });

  it.each([
    [[], /unknown jobs command/],
    [['purge'], /unknown jobs command "purge"/],
    [['list', '--status=lost'], /--status must be one of pending, running, done, dead/],
    [['list', '--limit=0'], /--limit must be/],
    [['list', '--limit=ten'], /--limit must be/],
    [['list', '--verbose'], /verbose/],
    [['list', 'extra'], /extra/],
    [['retry'], /one job id/],
    [['retry', '1', '2'], /one job id/],
    [['retry', 'abc'], /"abc" is not a job id/],
    [['retry', '1.5'], /"1.5" is not a job id/],
    [['retry', '0'], /"0" is not a job id/],
  ])('rejects jobs %j', async (args, message) => {
    const error = await run(args).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(CliUsageError);
    expect((error as Error).message).toMatch(message);
  });
});

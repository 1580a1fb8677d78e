import { randomBytes } from 'node:crypto';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { fixedClock } from '../../src/infra/clock.js';
import { localFileStore, type FileStore } from '../../src/infra/file-store/index.js';
import { s3FileStore } from '../../src/infra/file-store/s3-file-store.js';
import { retryJob } from '../../src/infra/jobs/queue.js';
import { fileRemovalHandler } from '../../src/modules/downloads/index.js';
import { productFileCommand } from '../../src/modules/downloads/product-files.cli.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { engine } from '../helpers/test-app.js';
import { createDownloadWorld, upload, type DownloadWorld } from './helpers.js';

// A product file's row deleted by hand (psql, sqlite3) queues, from its trigger (migration
// 2026_11_30_1050), the job that deletes its holders' items and then its stored bytes, unless another
// row still refers to the same key: on the local disk and in an S3 bucket. The job is safe to run
// again or twice at once (a missing file is no error), and a removal through the command or the API
// still deletes the bytes at once. The command's and the API's job takes the application's clock;
// a hand delete's, the database's.

const removalJobs = (world: DownloadWorld) =>
  world.t.database.db
    .selectFrom('job')
    .select(['id', 'payload', 'status', 'result', 'run_at', 'created_at', 'updated_at'])
    .where('type', '=', 'downloads.file-removal')
    .orderBy('id')
    .execute();

/** The removal jobs queued by `act`. */
async function queuedBy(world: DownloadWorld, act: () => Promise<unknown>) {
  const before = new Set((await removalJobs(world)).map((job) => Number(job.id)));
  await act();
  return (await removalJobs(world)).filter((job) => !before.has(Number(job.id)));
}

const jobById = (world: DownloadWorld, id: number) =>
  world.t.database.db.selectFrom('job').select(['status', 'result', 'attempts']).where('id', '=', id).executeTakeFirstOrThrow();

/** Uploads the product's PDF through the API; answers its row's id and stored key. */
async function uploadPdf(world: DownloadWorld, code: string): Promise<{ id: number; key: string }> {
  const response = await upload(world, code, 'PDF', randomBytes(900));
  expect(response.statusCode, response.body).toBe(200);
  const id = response.json().id as number;
  const row = await world.t.database.db.selectFrom('product_file').select('storage_key').where('id', '=', id).executeTakeFirstOrThrow();
  return { id, key: row.storage_key };
}

/** A row of the product's `format` written by hand, naming `key` in the store. */
async function rowByHand(world: DownloadWorld, productId: number, format: string, key: string): Promise<number> {
  const now = Date.now();
  const row = await world.t.database.db
    .insertInto('product_file')
    .values({
      product_id: productId,
      format,
      storage_key: key,
      content_type: 'application/pdf',
      size_bytes: 900,
      filename: 'by-hand.pdf',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

const deleteByHand = (world: DownloadWorld, id: number) => sql`delete from product_file where id = ${id}`.execute(world.t.database.db);

function removeByCommand(world: DownloadWorld, code: string, fileStore: FileStore, now?: number) {
  const printed: string[] = [];
  return productFileCommand(
    { db: world.t.database.db, fileStore, ...(now === undefined ? {} : { clock: fixedClock(now) }) },
    ['remove', code, 'PDF'],
    (line) => printed.push(line),
  ).then(() => printed);
}

describe(`on the local disk (${engine})`, () => {
  let world: DownloadWorld;
  beforeAll(async () => {
    world = await createDownloadWorld({}, 2);
  }, 60_000);
  afterAll(async () => world?.close());
  const stored = (key: string) => existsSync(join(world.fileDir, key));

  it('a row deleted by hand: its bytes stay until the job, which deletes them; run again, it fails nothing', async () => {
    const { id, key } = await uploadPdf(world, world.ebooks[0]!.code);
    expect(stored(key)).toBe(true);
    const [job] = await queuedBy(world, () => deleteByHand(world, id));
    expect(JSON.parse(job!.payload)).toEqual({ fileId: id, storageKey: key });
    expect(stored(key)).toBe(true);

    await world.t.drainJobs();
    expect(stored(key)).toBe(false);
    expect(await jobById(world, Number(job!.id))).toMatchObject({ status: 'done', result: 'removed 1; stored file deleted' });

    // A retry (or a worker that lost its claim): the bytes are gone already, and that is no error.
    expect(await retryJob(world.t.database.db, Number(job!.id))).toBe(true);
    await world.t.drainJobs();
    expect(await jobById(world, Number(job!.id))).toEqual({ status: 'done', result: 'removed 0; stored file deleted', attempts: 1 });
  });

  it('two workers running the same job at once both succeed, and the bytes are gone', async () => {
    const { id, key } = await uploadPdf(world, world.ebooks[0]!.code);
    const [job] = await queuedBy(world, () => deleteByHand(world, id));
    const run = fileRemovalHandler({ db: world.t.database.db, batch: 1, fileStore: async () => localFileStore(world.fileDir) });
    const payload = JSON.parse(job!.payload) as unknown;
    const results = await Promise.all([run(payload, {} as never), run(payload, {} as never)]);
    expect(results.every((result) => typeof result === 'string' && result.endsWith('; stored file deleted'))).toBe(true);
    expect(stored(key)).toBe(false);
    await world.t.drainJobs();
    expect(await jobById(world, Number(job!.id))).toMatchObject({ status: 'done', attempts: 1 });
  });

  it('bytes another row still refers to are kept, by the job and by the command; they go with the last row', async () => {
    const [first, second] = world.ebooks;
    const { id, key } = await uploadPdf(world, first!.code);
    // The same bytes made the other e-book's PDF by hand (a copied row).
    const copy = await rowByHand(world, second!.id, 'PDF', key);

    const [job] = await queuedBy(world, () => deleteByHand(world, id));
    await world.t.drainJobs();
    expect(stored(key)).toBe(true);
    expect(await jobById(world, Number(job!.id))).toMatchObject({
      status: 'done',
      result: 'removed 1; stored file kept, another file row refers to it',
    });

    // The command removes the last row: the bytes go at once, and its job then finds them gone.
    const again = await rowByHand(world, first!.id, 'PDF', key);
    const [commandJob] = await queuedBy(world, () => removeByCommand(world, first!.code, localFileStore(world.fileDir)));
    expect(stored(key)).toBe(true);
    expect(JSON.parse(commandJob!.payload)).toEqual({ fileId: again, storageKey: key });
    await world.t.drainJobs();
    expect(stored(key)).toBe(true);
    expect(await jobById(world, Number(commandJob!.id))).toMatchObject({ status: 'done', result: expect.stringMatching(/kept/) });

    expect(await removeByCommand(world, second!.code, localFileStore(world.fileDir))).toEqual([
      `Removed ${second!.code}'s PDF file (${copy}); its holders' list items go through a job.`,
    ]);
    expect(stored(key)).toBe(false);
    await world.t.drainJobs();
    // A row written by hand was given no items (the upload's job gives them).
    expect((await removalJobs(world)).at(-1)).toMatchObject({ status: 'done', result: 'removed 0; stored file deleted' });
  });

  it('a key the store does not take (written by hand) is left alone and fails nothing; the payload is JSON whatever the key', async () => {
    // A file beside the store's folder, which "../" would name.
    const outside = `${world.fileDir}-outside.pdf`;
    writeFileSync(outside, 'not the store’s');
    try {
      const keys = [`../${basename(outside)}`, 'odd "quoted" \\ key ä\u0001.pdf'];
      const ids = [
        await rowByHand(world, world.ebooks[0]!.id, 'PDF', keys[0]!),
        await rowByHand(world, world.ebooks[1]!.id, 'PDF', keys[1]!),
      ];
      const jobs = await queuedBy(world, () =>
        sql`delete from product_file where id in (${ids[0]}, ${ids[1]})`.execute(world.t.database.db),
      );
      expect(
        jobs.map((job) => JSON.parse(job.payload) as unknown).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      ).toEqual(
        ids
          .map((fileId, index) => ({ fileId, storageKey: keys[index] }))
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
      );
      await world.t.drainJobs();
      for (const job of jobs)
        expect(await jobById(world, Number(job.id))).toMatchObject({
          status: 'done',
          result: 'removed 0; stored file left, its key is none the store takes',
        });
      expect(existsSync(outside)).toBe(true);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('an upload replacing a file keeps the bytes another row refers to, and answers 200 over a key the store does not take', async () => {
    const [first, second] = world.ebooks;
    const { id, key } = await uploadPdf(world, first!.code);
    const copy = await rowByHand(world, second!.id, 'PDF', key);
    // The first e-book's PDF uploaded again: its old key is the second's still.
    const replaced = await uploadPdf(world, first!.code);
    expect(replaced.id).toBe(id);
    expect(stored(key)).toBe(true);
    // A key written by hand that the store refuses: the upload is saved, and says so.
    await world.t.database.db.updateTable('product_file').set({ storage_key: '../by-hand.pdf' }).where('id', '=', id).execute();
    const again = await uploadPdf(world, first!.code);
    expect(again.id).toBe(id);
    expect(stored(again.key)).toBe(true);
    // The second's bytes go with its row; the first's with its.
    await removeByCommand(world, second!.code, localFileStore(world.fileDir));
    expect(stored(key)).toBe(false);
    await removeByCommand(world, first!.code, localFileStore(world.fileDir));
    expect(stored(again.key)).toBe(false);
    expect(copy).toBeGreaterThan(id);
    await world.t.drainJobs();
  });

  it("the command's and the API's job take the application's clock; a hand delete's, the database's, and it is due at once", async () => {
    const code = world.ebooks[0]!.code;
    // The command with its clock an hour back (a test's clock, say): the job is written at that time.
    const at = Date.now() - 3_600_000;
    await uploadPdf(world, code);
    const [byCommand] = await queuedBy(world, () => removeByCommand(world, code, localFileStore(world.fileDir), at));
    expect([byCommand!.run_at, byCommand!.created_at, byCommand!.updated_at].map(Number)).toEqual([at, at, at]);

    // The API's DELETE: the request's action time (its header, in seconds).
    await uploadPdf(world, code);
    let actionTime = 0;
    const [byApi] = await queuedBy(world, async () => {
      const response = await world.t.app.inject({
        method: 'DELETE',
        url: `/admin/product-files/${code}/PDF`,
        headers: { authorization: `Bearer ${world.operatorKey}` },
      });
      expect(response.statusCode, response.body).toBe(204);
      actionTime = Number(response.headers['action-time']);
    });
    expect(Math.floor(Number(byApi!.run_at) / 1000)).toBe(actionTime);
    expect(Number(byApi!.created_at)).toBe(Number(byApi!.run_at));

    // By hand: the database's clock, the wall clock in Unix ms as the worker's; due at once.
    const { id } = await uploadPdf(world, code);
    const start = Date.now();
    const [byHand] = await queuedBy(world, () => deleteByHand(world, id));
    expect(Math.abs(Number(byHand!.run_at) - start)).toBeLessThan(60_000);
    await world.t.drainJobs();
    for (const job of [byCommand, byApi, byHand]) expect((await jobById(world, Number(job!.id))).status).toBe('done');
  });
});

describe(`in an S3 bucket (${engine})`, () => {
  let s3: S3Server;
  let world: DownloadWorld;
  let store: FileStore;
  beforeAll(async () => {
    s3 = await startS3Server();
    world = await createDownloadWorld(s3.env);
    store = s3FileStore(loadConfig(s3.env).fileStore.s3!);
  }, 60_000);
  afterAll(async () => {
    await world?.close();
    await s3?.close();
  });

  it('a row deleted by hand: the job deletes its object, and again fails nothing', async () => {
    const { id, key } = await uploadPdf(world, world.ebooks[0]!.code);
    expect(await store.stat(key)).toEqual({ size: 900 });
    const [job] = await queuedBy(world, () => deleteByHand(world, id));
    expect(await store.stat(key)).toEqual({ size: 900 });
    await world.t.drainJobs();
    expect(await store.stat(key)).toBeUndefined();
    expect(await jobById(world, Number(job!.id))).toMatchObject({ status: 'done', result: 'removed 1; stored file deleted' });
    expect(await retryJob(world.t.database.db, Number(job!.id))).toBe(true);
    await world.t.drainJobs();
    expect(await jobById(world, Number(job!.id))).toMatchObject({ status: 'done', result: 'removed 0; stored file deleted' });
  });

  it('the command deletes the object at once, as before; its job then finds it gone', async () => {
    const { key } = await uploadPdf(world, world.ebooks[0]!.code);
    const [job] = await queuedBy(world, () => removeByCommand(world, world.ebooks[0]!.code, store));
    expect(await store.stat(key)).toBeUndefined();
    await world.t.drainJobs();
    expect(await jobById(world, Number(job!.id))).toMatchObject({ status: 'done', result: 'removed 1; stored file deleted' });
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryJob } from '../../src/infra/jobs/queue.js';
import type { Who } from '../basket/helpers.js';
import { createCustomer } from '../helpers/customers.js';
import { buy, createDownloadWorld, downloads, upload, type DownloadWorld } from './helpers.js';

// A new format of a bought product reaches every holder's download list through a job the upload
// queues, which adds the items in pages of DOWNLOAD_ITEMS_BATCH holders (2 here), each page one
// statement: the upload itself adds none, however many people hold the product. Every holder gets
// the new format once, also when the job runs again.

let world: DownloadWorld;
const holders: Who[] = [];

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_ITEMS_BATCH: '2' });
  const db = world.t.database.db;
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', randomBytes(1_000))).statusCode).toBe(200);
  const courier = await db.selectFrom('delivery_method').select('id').where('code', '=', 'EMAIL').executeTakeFirstOrThrow();
  holders.push(world.customer);
  // Four more buyers (and the first one again): six purchases, three pages and more.
  for (let index = 0; index < 4; index += 1) {
    const customer = await createCustomer(db);
    const who = { bearer: customer.token };
    await buy(world.t, who, [world.ebooks[0]!.id], Number(courier.id));
    holders.push(who);
  }
  await buy(world.t, world.customer, [world.ebooks[0]!.id], Number(courier.id));
}, 120_000);

afterAll(async () => {
  await world?.close();
});

const formatsOf = async (who: Who) => (await downloads(world, who)).map((item) => item.format).sort();
const itemsOfFile = (fileId: number) =>
  world.t.database.db.selectFrom('download_item').select(['order_id', 'take_id']).where('file_id', '=', fileId).execute();

describe('a new format of a product many hold', () => {
  it('is added by the job in pages, once per purchase, and a second run adds nothing', async () => {
    const db = world.t.database.db;
    const uploaded = await upload(world, world.ebooks[0]!.code, 'PDF', randomBytes(700), '', true);
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const fileId = uploaded.json().id as number;
    // The upload's transaction added no item; it queued the job.
    expect(await itemsOfFile(fileId)).toEqual([]);
    const job = await db
      .selectFrom('job')
      .select(['id', 'status'])
      .where('type', '=', 'downloads.file-items')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(job.status).toBe('pending');

    await world.t.drainJobs();
    const purchases = await db.selectFrom('order_entitlement').select('order_id').where('product_id', '=', world.ebooks[0]!.id).execute();
    expect(purchases).toHaveLength(6);
    const added = await itemsOfFile(fileId);
    expect(added.map((row) => Number(row.order_id)).sort((a, b) => a - b)).toEqual(
      purchases.map((row) => Number(row.order_id)).sort((a, b) => a - b),
    );
    expect(await db.selectFrom('job').select(['status', 'result']).where('id', '=', job.id).executeTakeFirstOrThrow()).toEqual({
      status: 'done',
      result: 'added 6',
    });
    // The first customer bought twice: two items of each format.
    expect(await formatsOf(world.customer)).toEqual(['EPUB', 'EPUB', 'PDF', 'PDF']);
    for (const who of holders.slice(1)) expect(await formatsOf(who)).toEqual(['EPUB', 'PDF']);

    // Run again (a retry after a failure, a worker that lost its claim): done, nothing added twice.
    expect(await retryJob(db, job.id)).toBe(true);
    await world.t.drainJobs();
    expect(await db.selectFrom('job').select(['status', 'result']).where('id', '=', job.id).executeTakeFirstOrThrow()).toEqual({
      status: 'done',
      result: 'added 0',
    });
    expect(await itemsOfFile(fileId)).toHaveLength(6);
    for (const who of holders.slice(1)) expect(await formatsOf(who)).toEqual(['EPUB', 'PDF']);
  });

  it('queues nothing when an upload replaces a format the product has', async () => {
    const db = world.t.database.db;
    const before = await db.selectFrom('job').select('id').where('type', '=', 'downloads.file-items').execute();
    expect((await upload(world, world.ebooks[0]!.code, 'PDF', randomBytes(800), '', true)).statusCode).toBe(200);
    expect(await db.selectFrom('job').select('id').where('type', '=', 'downloads.file-items').execute()).toEqual(before);
    for (const who of holders.slice(1)) expect(await formatsOf(who)).toEqual(['EPUB', 'PDF']);
  });
});

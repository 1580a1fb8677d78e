import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { localFileStore } from '../../src/infra/file-store/index.js';
import { retryJob } from '../../src/infra/jobs/queue.js';
import { fileItemsHandler } from '../../src/modules/downloads/index.js';
import { productFileCommand } from '../../src/modules/downloads/product-files.cli.js';
import type { Who } from '../basket/helpers.js';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { lockWaiters, until, withTableHeld } from '../helpers/lock-waits.js';
import { engine } from '../helpers/test-app.js';
import { buy, createDownloadWorld, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// A removed format (storefront product-file remove) goes at once, in the removal's transaction: no
// link is made for it and none made before is served, and the holders' lists (items and total) no
// longer show it, as when its items went with it. The items themselves are deleted by a job the
// removal queues, in pages of DOWNLOAD_ITEMS_BATCH (2 here), each page one statement: the removal
// deletes none, however many people hold the product. A second run deletes nothing; a new upload of
// the format while the items wait, and a purchase meanwhile, end with every holder's list whole.

let world: DownloadWorld;
let courierId: number;
const holders: Who[] = [];

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_ITEMS_BATCH: '2' });
  const db = world.t.database.db;
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', randomBytes(1_000))).statusCode).toBe(200);
  courierId = Number((await db.selectFrom('delivery_method').select('id').where('code', '=', 'EMAIL').executeTakeFirstOrThrow()).id);
  holders.push(world.customer);
  // Four more buyers (and the first one again): six purchases, more than two pages.
  for (let index = 0; index < 4; index += 1) {
    const customer = await createCustomer(db);
    const who = { bearer: customer.token };
    await buy(world.t, who, [world.ebooks[0]!.id], courierId);
    holders.push(who);
  }
  await buy(world.t, world.customer, [world.ebooks[0]!.id], courierId);
}, 120_000);

afterAll(async () => {
  await world?.close();
});

/** The formats of the holder's list, with its total header checked against them. */
async function formatsOf(who: Who): Promise<string[]> {
  const response = await get(world, '/download?per-page=100', who);
  expect(response.statusCode, response.body).toBe(200);
  const items = response.json() as Array<{ id: string; format: string }>;
  expect(response.headers['x-pagination-total-count']).toBe(String(items.length));
  return items.map((item) => item.format).sort();
}

/** The customer's entitlement to the product in their order, as the order's processing job writes it. */
async function grant(db: Db, productId: number): Promise<void> {
  await db
    .insertInto('order_entitlement')
    .values({ order_id: world.orderId, product_id: productId, client_account_id: world.customer.clientAccountId, created_at: Date.now() })
    .execute();
}

const itemsOfFile = async (fileId: number) =>
  (await world.t.database.db.selectFrom('download_item').select('order_id').where('file_id', '=', fileId).execute()).length;

async function uploadPdf(holdJobs = false): Promise<number> {
  const response = await upload(world, world.ebooks[0]!.code, 'PDF', randomBytes(700), '', holdJobs);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().id as number;
}

async function removePdf(): Promise<string[]> {
  const printed: string[] = [];
  const fileStore = localFileStore(world.fileDir);
  await productFileCommand({ db: world.t.database.db, fileStore }, ['remove', world.ebooks[0]!.code, 'PDF'], (line) => printed.push(line));
  return printed;
}

const lastRemovalJob = () =>
  world.t.database.db
    .selectFrom('job')
    .select(['id', 'status', 'result'])
    .where('type', '=', 'downloads.file-removal')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();

const removalJobs = () =>
  world.t.database.db.selectFrom('job').select(['id', 'payload', 'status']).where('type', '=', 'downloads.file-removal').execute();

const expectWholeLists = async (formats: string[]) => {
  expect(await formatsOf(world.customer)).toEqual(formats.flatMap((format) => [format, format]));
  for (const who of holders.slice(1)) expect(await formatsOf(who)).toEqual(formats);
};

function deletePdf(code: string, who: { operator?: boolean } = { operator: true }) {
  return world.t.app.inject({
    method: 'DELETE',
    url: `/admin/product-files/${code}/PDF`,
    headers: who.operator ? { authorization: `Bearer ${world.operatorKey}` } : {},
  });
}

describe('DELETE /admin/product-files/{productCode}/{format}', () => {
  it('removes the format as the command does: 204, gone from every list at once, the items by the job; again, 404', async () => {
    const pdf = await uploadPdf();
    await expectWholeLists(['EPUB', 'PDF']);
    const code = world.ebooks[0]!.code;
    expectErrorBody(await deletePdf(code, {}), 401, 'Unauthorized');
    expectErrorBody(await deletePdf('NO-SUCH-PRODUCT'), 404, 'Not Found');
    expect(await itemsOfFile(pdf)).toBe(6);

    const before = await removalJobs();
    const removed = await deletePdf(code);
    expect(removed.statusCode, removed.body).toBe(204);
    expect(removed.body).toBe('');
    // Exactly one job (queued by the delete's trigger, none by the removal itself), for this file.
    const queued = (await removalJobs()).filter((job) => !before.some((old) => old.id === job.id));
    expect(queued.map((job) => JSON.parse(job.payload) as unknown)).toEqual([{ fileId: pdf, storageKey: expect.any(String) }]);
    await expectWholeLists(['EPUB']);
    expect(await world.t.database.db.selectFrom('product_file').select('id').where('id', '=', pdf).execute()).toEqual([]);
    await world.t.drainJobs();
    expect(await itemsOfFile(pdf)).toBe(0);
    expect(await lastRemovalJob()).toMatchObject({ status: 'done', result: 'removed 6; stored file deleted' });

    // A second DELETE (a double click, a retry): the file is gone, nothing else is queued or removed.
    const jobs = await world.t.database.db.selectFrom('job').select('id').where('type', '=', 'downloads.file-removal').execute();
    const again = await deletePdf(code);
    expectErrorBody(again, 404, 'Not Found');
    expect(again.json().message).toBe(`Tootel "${code}" ei ole PDF-faili.`);
    expect(await world.t.database.db.selectFrom('job').select('id').where('type', '=', 'downloads.file-removal').execute()).toEqual(jobs);
    await expectWholeLists(['EPUB']);
  });
});

describe('a removed format of a product many hold', () => {
  it('is gone from every list and link at once; the job deletes its items in pages, and a second run deletes nothing', async () => {
    const pdf = await uploadPdf();
    await expectWholeLists(['EPUB', 'PDF']);
    const items = (await get(world, '/download?per-page=100', world.customer)).json() as Array<{ id: string; format: string }>;
    const pdfItem = items.find((item) => item.format === 'PDF')!;
    const minted = await linkPath(world, world.customer, pdfItem.id);
    const { storage_key: storageKey } = await world.t.database.db
      .selectFrom('product_file')
      .select('storage_key')
      .where('id', '=', pdf)
      .executeTakeFirstOrThrow();

    expect(await removePdf()).toEqual([`Removed ${world.ebooks[0]!.code}'s PDF file (${pdf}); its holders' list items go through a job.`]);
    // The removal deleted no item: the job will, in pages.
    expect(await itemsOfFile(pdf)).toBe(6);
    expect((await lastRemovalJob()).status).toBe('pending');
    // What holders see already: the format is neither listed nor counted, no link is made, none served.
    await expectWholeLists(['EPUB']);
    expectErrorBody(await get(world, `/download/${pdfItem.id}/link`, world.customer), 404, 'Not Found');
    expectErrorBody(await get(world, minted), 403, 'Forbidden');
    expect(existsSync(join(world.fileDir, storageKey))).toBe(false);

    await world.t.drainJobs();
    expect(await itemsOfFile(pdf)).toBe(0);
    const job = await lastRemovalJob();
    expect(job).toMatchObject({ status: 'done', result: 'removed 6; stored file deleted' });
    await expectWholeLists(['EPUB']);

    // Run again (a retry after a failure, a worker that lost its claim): done, nothing else removed.
    expect(await retryJob(world.t.database.db, job.id)).toBe(true);
    await world.t.drainJobs();
    expect(
      await world.t.database.db.selectFrom('job').select(['status', 'result']).where('id', '=', job.id).executeTakeFirstOrThrow(),
    ).toEqual({
      status: 'done',
      // The stored file went with the removal: deleting it again is no error.
      result: 'removed 0; stored file deleted',
    });
    await expectWholeLists(['EPUB']);
    expect(await itemsOfFile(pdf)).toBe(0);
    // A format the product no longer has removes nothing, and says so as a failure (test/cli/cli.test.ts).
    await expect(removePdf()).rejects.toThrow(
      `product-file remove: the product "${world.ebooks[0]!.code}" has no PDF file; nothing was removed`,
    );
  });

  it('deleted by hand (SQL, as an operator in psql), has its items deleted by the same job', async () => {
    const db = world.t.database.db;
    const pdf = await uploadPdf();
    await expectWholeLists(['EPUB', 'PDF']);
    expect(await itemsOfFile(pdf)).toBe(6);
    const before = await removalJobs();
    await sql`delete from product_file where id = ${pdf}`.execute(db);
    const queued = (await removalJobs()).filter((job) => !before.some((old) => old.id === job.id));
    expect(queued.map((job) => ({ payload: JSON.parse(job.payload) as unknown, status: job.status }))).toEqual([
      { payload: { fileId: pdf, storageKey: expect.any(String) }, status: 'pending' },
    ]);
    await expectWholeLists(['EPUB']);
    await world.t.drainJobs();
    expect(await itemsOfFile(pdf)).toBe(0);
    expect(await lastRemovalJob()).toMatchObject({ status: 'done', result: 'removed 6; stored file deleted' });
    await expectWholeLists(['EPUB']);
  });

  it('uploaded again while the old items wait, reaches every holder once; the old items go, in either order of the jobs', async () => {
    const old = await uploadPdf();
    await removePdf();
    const removal = await lastRemovalJob();
    const again = await uploadPdf(true);
    expect(again).not.toBe(old);
    // Neither job ran: the old file is not shown, the new one not yet.
    await expectWholeLists(['EPUB']);
    await world.t.drainJobs();
    expect([await itemsOfFile(old), await itemsOfFile(again)]).toEqual([0, 6]);
    await expectWholeLists(['EPUB', 'PDF']);
    // The removal once more, after the new file's job: the new file's items stay.
    expect(await retryJob(world.t.database.db, removal.id)).toBe(true);
    await world.t.drainJobs();
    expect([await itemsOfFile(old), await itemsOfFile(again)]).toEqual([0, 6]);
    await expectWholeLists(['EPUB', 'PDF']);
  });

  it('bought while its items wait, is not on the new buyer’s list, before or after the job', async () => {
    const removed = (
      await world.t.database.db
        .selectFrom('product_file')
        .select('id')
        .where('product_id', '=', world.ebooks[0]!.id)
        .where('format', '=', 'PDF')
        .executeTakeFirstOrThrow()
    ).id;
    await removePdf();
    // buy() runs the due jobs: hold the removal back until the purchase was granted.
    const removal = await lastRemovalJob();
    await world.t.database.db
      .updateTable('job')
      .set({ run_at: Date.now() + 3_600_000 })
      .where('id', '=', removal.id)
      .execute();
    const customer = await createCustomer(world.t.database.db);
    const buyer = { bearer: customer.token };
    await buy(world.t, buyer, [world.ebooks[0]!.id], courierId);
    expect(await formatsOf(buyer)).toEqual(['EPUB']);
    await expectWholeLists(['EPUB']);
    expect(await itemsOfFile(Number(removed))).toBe(6);
    expect((await lastRemovalJob()).status).toBe('pending');
    await world.t.database.db.updateTable('job').set({ run_at: Date.now() }).where('id', '=', removal.id).execute();
    await world.t.drainJobs();
    expect(await itemsOfFile(Number(removed))).toBe(0);
    expect(await formatsOf(buyer)).toEqual(['EPUB']);
    await expectWholeLists(['EPUB']);
  });

  it('removed while the format is uploaded again, or while someone buys it, ends with every list whole', async () => {
    const db = world.t.database.db;
    const productId = world.ebooks[0]!.id;
    // Whatever ran first: each file the product has is on every purchase's list once, and no item is of another file.
    const expectConsistent = async () => {
      await world.t.drainJobs();
      const files = (await db.selectFrom('product_file').select(['id', 'format']).where('product_id', '=', productId).execute()).map(
        (file) => ({ id: Number(file.id), format: file.format }),
      );
      const purchases = await db.selectFrom('order_entitlement').select('order_id').where('product_id', '=', productId).execute();
      for (const file of files) expect(await itemsOfFile(file.id)).toBe(purchases.length);
      const stray = await db
        .selectFrom('download_item')
        .select('file_id')
        .where('product_id', '=', productId)
        .where(
          'file_id',
          'not in',
          files.map((file) => file.id),
        )
        .execute();
      expect(stray).toEqual([]);
      const formats = files.map((file) => file.format).sort();
      expect(await formatsOf(world.customer)).toEqual(formats.flatMap((format) => [format, format]));
    };
    for (let round = 0; round < 3; round += 1) {
      if (
        (await db.selectFrom('product_file').select('id').where('product_id', '=', productId).where('format', '=', 'PDF').execute())
          .length === 0
      )
        await uploadPdf();
      await Promise.all([removePdf(), uploadPdf(true)]);
      await expectConsistent();
      if (
        (await db.selectFrom('product_file').select('id').where('product_id', '=', productId).where('format', '=', 'PDF').execute())
          .length === 0
      )
        await uploadPdf();
      const customer = await createCustomer(db);
      await Promise.all([removePdf(), buy(world.t, { bearer: customer.token }, [productId], courierId)]);
      await expectConsistent();
    }
  }, 60_000);

  describe('in the orders that race (forced on PostgreSQL; SQLite runs one writer at a time)', () => {
    /** A product of its own, with a PDF: its code, id and file id. */
    async function productWithPdf() {
      const db = world.t.database.db;
      const id = await createProduct(db, {
        name: 'Võidujooks',
        type: 'EBOOK',
        binding: 'EPUB',
        deliveryTime: 'INSTANT_DOWNLOAD',
        price: 5,
      });
      const { code } = await db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow();
      const uploaded = await upload(world, code, 'PDF', randomBytes(300));
      expect(uploaded.statusCode, uploaded.body).toBe(200);
      return { id, code, fileId: uploaded.json().id as number };
    }
    const remove = (code: string) =>
      productFileCommand({ db: world.t.database.db, fileStore: localFileStore(world.fileDir) }, ['remove', code, 'PDF'], () => {});

    it('a grant written while the file is removed leaves no item of it', async () => {
      const db = world.t.database.db;
      const product = await productWithPdf();
      let removal: Promise<void> | undefined;
      let removed = false;
      // The grant (as the processing job writes it) has added its item of the PDF and stays open.
      await db.transaction().execute(async (trx) => {
        await grant(trx, product.id);
        if (engine !== 'postgres') return;
        removal = remove(product.code).then(() => void (removed = true));
        await until('the removal to wait for the grant, or be done', async () => removed || (await lockWaiters(db)) >= 1);
        // Were the removal done already, its job would run now, before the grant's item is committed.
        if (removed) await world.t.drainJobs();
      });
      await (removal ?? remove(product.code));
      await world.t.drainJobs();
      expect(await itemsOfFile(product.fileId)).toBe(0);
      const listed = (await get(world, '/download?per-page=100', world.customer)).json() as Array<{ productId: number }>;
      expect(listed.filter((item) => item.productId === product.id)).toEqual([]);
    });

    it.runIf(engine === 'postgres')(
      "a removal while the new-file job writes a page waits for the page's commit; its job then deletes the page's item",
      async () => {
        const db = world.t.database.db;
        const id = await createProduct(db, {
          name: 'Lehekülg',
          type: 'EBOOK',
          binding: 'EPUB',
          deliveryTime: 'INSTANT_DOWNLOAD',
          price: 5,
        });
        const { code } = await db.selectFrom('product').select('code').where('id', '=', id).executeTakeFirstOrThrow();
        // A holder before the file: the file's item is the new-file job's to add.
        await grant(db, id);
        const uploaded = await upload(world, code, 'PDF', randomBytes(300), '', true);
        expect(uploaded.statusCode, uploaded.body).toBe(200);
        const fileId = uploaded.json().id as number;
        expect(await itemsOfFile(fileId)).toBe(0);

        let page: Promise<unknown> | undefined;
        let removal: Promise<void> | undefined;
        let removed = false;
        const rolledBack = new Error('rolled back');
        await db
          .transaction()
          .execute(async (trx) => {
            // Another writer's uncommitted item of the same purchase and file: the page (the product's lock taken shared,
            // the file read) waits on it at its insert, and writes its own once this rolls back.
            await trx
              .insertInto('download_item')
              .values({
                order_id: world.orderId,
                take_id: 0,
                file_id: fileId,
                product_id: id,
                client_account_id: world.customer.clientAccountId,
                store_code: 'WEB',
                granted_at: Date.now(),
                subscription_id: null,
              })
              .execute();
            page = fileItemsHandler({ db, batch: 2 })({ fileId }, {} as never);
            await until('the page to wait on the item', async () => (await lockWaiters(db)) >= 1);
            removal = remove(code).then(() => void (removed = true));
            await until('the removal to wait for the page, or be done', async () => removed || (await lockWaiters(db)) >= 2);
            // Were the removal done already, its job would run now, before the page's item is committed.
            if (removed) await world.t.drainJobs();
            throw rolledBack;
          })
          .catch((error: unknown) => {
            if (error !== rolledBack) throw error;
          });
        expect(await page).toBe('added 1');
        await removal;
        await world.t.drainJobs();
        expect(await itemsOfFile(fileId)).toBe(0);
        const listed = (await get(world, '/download?per-page=100', world.customer)).json() as Array<{ productId: number }>;
        expect(listed.filter((item) => item.productId === id)).toEqual([]);
      },
    );

    it('an upload of the format that read the old file before the removal committed is a new format', async () => {
      const db = world.t.database.db;
      const product = await productWithPdf();
      await grant(db, product.id);
      expect(await itemsOfFile(product.fileId)).toBe(1);
      // With the job table held, the removal has deleted the file and waits to queue its job; the upload has
      // read the old file and waits for the removal at its insert, which then makes a new row.
      const [, uploaded] = await withTableHeld(db, 'job', () =>
        Promise.all([remove(product.code), upload(world, product.code, 'PDF', randomBytes(400), '', true)]),
      );
      expect(uploaded.statusCode, uploaded.body).toBe(200);
      await world.t.drainJobs();
      const files = await db.selectFrom('product_file').select('id').where('product_id', '=', product.id).execute();
      // Either the upload replaced the file and the removal took it, or the removal ran first and the upload is a new
      // file (on PostgreSQL, as forced: the file the upload read was removed under it).
      if (engine === 'postgres') expect(files.map((file) => Number(file.id)).filter((id) => id !== product.fileId)).toHaveLength(1);
      const expected = files.length === 0 ? [] : [{ productId: product.id, format: 'PDF' }];
      if (files.length === 1) expect(await itemsOfFile(Number(files[0]!.id))).toBe(1);
      expect(await itemsOfFile(product.fileId)).toBe(files.length === 1 && Number(files[0]!.id) === product.fileId ? 1 : 0);
      const listed = (await get(world, '/download?per-page=100', world.customer)).json() as Array<{ productId: number; format: string }>;
      expect(listed.filter((item) => item.productId === product.id).map(({ productId, format }) => ({ productId, format }))).toEqual(
        expected,
      );
    });
  });
});

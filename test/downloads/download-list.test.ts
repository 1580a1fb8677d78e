import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as downloadItemMigration from '../../src/db/migrations/2026_11_28_0600_create_download_item.js';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { downloadPage } from '../../src/modules/downloads/downloads.repository.js';
import { queueFileItems } from '../../src/modules/downloads/download-items.jobs.js';
import { grantEntitlements, revokeEntitlements } from '../../src/modules/orders/entitlements.repository.js';
import { insertOrder } from '../helpers/order-fixtures.js';
import { engine } from '../helpers/test-app.js';
import { planOfStatement, recordingStatements } from '../helpers/query-plans.js';
import { call, createCustomer, secondAccountOf, startSubscriptionShop, type SubscriptionShop } from '../subscriptions/helpers.js';
import { createTakeCatalogue, subscriber, take, type Subscriber, type TakeCatalogue } from '../subscriptions/takes-helpers.js';

// GET /download pages one list of two sources: purchases (order_entitlement) and what a
// subscription gave (subscription_take), one item per file of the product. The order is newest
// first, then the order id, then the take id (a purchase before a take of the same moment), then
// the file id, which interleaves the files of an order's products. Items of both sources are
// mixed in time here, files are added before and after they were bought or taken, and every page
// is held to that order worked out from the rows given; a second customer, a second account of the
// same user and another store see none of it. A page and the count are a range of
// download_item_list_idx (migration 2026_11_28_0600), in its order, with no sort.

let s: SubscriptionShop;
let fileDir: string;
let operatorKey: string;
let books: TakeCatalogue;
let alice: Subscriber;
let bob: Subscriber;

/** An item as the test expects it. */
interface Expected {
  id: string;
  orderId: number;
  takeId: number;
  fileId: number;
  productId: number;
  at: number;
}
const aliceItems: Expected[] = [];
const bobItems: Expected[] = [];

/** The list's order, worked out independently of the service. */
const listOrder = (a: Expected, b: Expected) => b.at - a.at || b.orderId - a.orderId || b.takeId - a.takeId || a.fileId - b.fileId;

const filesOf = new Map<number, number[]>();

async function upload(productId: number, format: 'EPUB' | 'PDF' | 'MP3' | 'M4B') {
  const { code } = await s.t.database.db.selectFrom('product').select('code').where('id', '=', productId).executeTakeFirstOrThrow();
  const response = await s.t.app.inject({
    method: 'PUT',
    url: `/admin/product-files/${code}/${format}`,
    headers: { authorization: `Bearer ${operatorKey}`, 'content-type': 'application/octet-stream' },
    payload: randomBytes(500),
  });
  expect(response.statusCode, response.body).toBe(200);
  // A new format reaches its holders' lists through the job the upload queued.
  await s.t.drainJobs();
  filesOf.set(productId, [...(filesOf.get(productId) ?? []), response.json().id as number]);
}

/** Buys the products in one order of the store at `at` (entitlements granted as processing grants them). */
async function buy(who: Subscriber, productIds: number[], at: number, store: 'WEB' | 'WEB2' = 'WEB') {
  const db = s.t.database.db;
  const codes = await db.selectFrom('product').select(['id', 'code', 'type']).where('id', 'in', productIds).execute();
  const order = await insertOrder(db, {
    status: 'PROCESSING',
    store,
    clientAccountId: who.customer.clientAccountId,
    lines: codes.map((row) => ({ productId: Number(row.id), productCode: row.code, digital: true })),
  });
  await db.transaction().execute((trx) =>
    grantEntitlements(
      trx,
      { id: order.id, client_account_id: who.customer.clientAccountId },
      codes.map((row) => ({ product_id: Number(row.id), product_type: row.type, is_digital: true })),
      at,
    ),
  );
  return order.id;
}

async function takeNow(who: Subscriber, productId: number): Promise<{ takeId: number; at: number }> {
  const response = await take(s, who, productId);
  expect(response.statusCode, response.body).toBe(201);
  const row = await s.t.database.db
    .selectFrom('subscription_take')
    .select(['id', 'created_at'])
    .where('subscription_id', '=', who.id)
    .where('product_id', '=', productId)
    .executeTakeFirstOrThrow();
  return { takeId: Number(row.id), at: Number(row.created_at) };
}

/** What the list should hold: every file of each grant's product, now (files may come later). */
function expectedOf(grants: Array<{ orderId?: number; takeId?: number; productId: number; at: number }>): Expected[] {
  return grants
    .flatMap((grant) =>
      (filesOf.get(grant.productId) ?? []).map((fileId) => ({
        id: grant.takeId ? `S${grant.takeId}-${fileId}` : `${grant.orderId}-${fileId}`,
        orderId: grant.orderId ?? 0,
        takeId: grant.takeId ?? 0,
        fileId,
        productId: grant.productId,
        at: grant.at,
      })),
    )
    .sort(listOrder);
}

async function page(who: Subscriber, query: string) {
  const response = await call(s, who.customer, 'GET', `/download${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

/** Every page of the list with `perPage` items, checking each page's headers. */
async function allPages(who: Subscriber, perPage: number, total: number) {
  const pages = Math.ceil(total / perPage);
  const ids: string[] = [];
  for (let number = 1; number <= pages + 1; number += 1) {
    const response = await page(who, `?page=${number}&per-page=${perPage}`);
    expect(response.headers['x-pagination-total-count']).toBe(String(total));
    expect(response.headers['x-pagination-page-count']).toBe(String(pages));
    expect(response.headers['x-pagination-current-page']).toBe(String(number));
    const items = response.json() as Array<{ id: string }>;
    expect(items.length).toBe(number < pages ? perPage : number === pages ? total - perPage * (pages - 1) : 0);
    ids.push(...items.map((item) => item.id));
  }
  return ids;
}

const aliceGrants: Array<{ orderId?: number; takeId?: number; productId: number; at: number }> = [];
const bobGrants: typeof aliceGrants = [];

beforeAll(async () => {
  fileDir = mkdtempSync(join(tmpdir(), 'storefront-list-files-'));
  s = await startSubscriptionShop({ FILE_STORE_DIR: fileDir, DOWNLOAD_LIMIT: '5' });
  operatorKey = await createApiKey(s.t.database.db, 'files', Date.now());
  books = await createTakeCatalogue(s, 6);
  // Files before anything is bought or taken: an EPUB of each e-book, an MP3 of each audiobook.
  for (const id of books.ebooks) await upload(id, 'EPUB');
  for (const id of books.audiobooks) await upload(id, 'MP3');
  alice = await subscriber(s, 'AUDIOMAX');
  bob = await subscriber(s, 'AUDIOMAX');

  const start = Date.now() - 60_000;
  // An order of three e-books, older than everything else.
  const first = await buy(alice, [books.ebooks[0]!, books.ebooks[1]!, books.ebooks[2]!], start);
  for (const productId of [books.ebooks[0]!, books.ebooks[1]!, books.ebooks[2]!])
    aliceGrants.push({ orderId: first, productId, at: start });
  for (const productId of [books.audiobooks[0]!, books.audiobooks[1]!, books.audiobooks[2]!]) {
    const taken = await takeNow(alice, productId);
    aliceGrants.push({ takeId: taken.takeId, productId, at: taken.at });
  }
  // An order at the same moment as the second take: the purchase comes first.
  const tie = aliceGrants.find((grant) => grant.productId === books.audiobooks[1])!.at;
  const second = await buy(alice, [books.ebooks[3]!], tie);
  aliceGrants.push({ orderId: second, productId: books.ebooks[3]!, at: tie });
  // Two takes in the same millisecond (made so here): the later take first.
  const [firstTake, , thirdTake] = aliceGrants.filter((grant) => grant.takeId !== undefined);
  await s.t.database.db.updateTable('subscription_take').set({ created_at: firstTake!.at }).where('id', '=', thirdTake!.takeId!).execute();
  thirdTake!.at = firstTake!.at;
  // Another order at the moment of the first: the later order first.
  const again = await buy(alice, [books.audiobooks[3]!], start);
  aliceGrants.push({ orderId: again, productId: books.audiobooks[3]!, at: start });
  // The newest: an e-book and an audiobook bought together.
  const newest = Date.now() + 60_000;
  const third = await buy(alice, [books.audiobooks[4]!, books.ebooks[4]!], newest);
  for (const productId of [books.audiobooks[4]!, books.ebooks[4]!]) aliceGrants.push({ orderId: third, productId, at: newest });
  // Alice's order in the other store is not in this store's list.
  await buy(alice, [books.ebooks[5]!], Date.now(), 'WEB2');

  // Bob bought and took some of the same products.
  const bobs = await buy(bob, [books.ebooks[0]!, books.ebooks[3]!], start + 1);
  for (const productId of [books.ebooks[0]!, books.ebooks[3]!]) bobGrants.push({ orderId: bobs, productId, at: start + 1 });
  const bobTake = await takeNow(bob, books.audiobooks[0]!);
  bobGrants.push({ takeId: bobTake.takeId, productId: books.audiobooks[0]!, at: bobTake.at });

  // Files added after the purchases and takes: a PDF of two bought e-books (one of them Bob's too)
  // and an M4B of a taken audiobook.
  await upload(books.ebooks[1]!, 'PDF');
  await upload(books.ebooks[0]!, 'PDF');
  await upload(books.audiobooks[0]!, 'M4B');
  aliceItems.push(...expectedOf(aliceGrants));
  bobItems.push(...expectedOf(bobGrants));
});

afterAll(async () => {
  await s?.close();
  rmSync(fileDir, { recursive: true, force: true });
});

describe('GET /download over purchases and takes', () => {
  it('gives every page in the list order, purchases and takes mixed, with the total on each', async () => {
    // 3 + 2 (two PDFs) + 3 + 1 (the M4B) + 1 + 1 + 2 items.
    expect(aliceItems).toHaveLength(13);
    expect(await allPages(alice, 5, 13)).toEqual(aliceItems.map((item) => item.id));
    expect(await allPages(alice, 1, 13)).toEqual(aliceItems.map((item) => item.id));
    expect(await allPages(alice, 20, 13)).toEqual(aliceItems.map((item) => item.id));
    // The first order's files interleave its products' by file id; the tied order comes before the take.
    const firstOrder = aliceItems.filter((item) => item.orderId === aliceGrants[0]!.orderId);
    expect(firstOrder.map((item) => item.fileId)).toEqual([...firstOrder.map((item) => item.fileId)].sort((a, b) => a - b));
    expect(firstOrder.map((item) => item.productId)).not.toEqual([...firstOrder.map((item) => item.productId)].sort((a, b) => a - b));
    const secondTake = aliceGrants.find((grant) => grant.productId === books.audiobooks[1])!.takeId;
    const tiedOrder = aliceGrants.find((grant) => grant.productId === books.ebooks[3])!.orderId;
    const tied = aliceItems.filter((item) => item.takeId === secondTake || item.orderId === tiedOrder);
    expect(tied.map((item) => item.takeId === 0)).toEqual([true, false]);
    expect(aliceItems.indexOf(tied[1]!)).toBe(aliceItems.indexOf(tied[0]!) + 1);
  });

  it('gives each item its fields: source, order code, product, format, size, downloads and when', async () => {
    const [item] = (await page(alice, '?per-page=1')).json();
    const newest = aliceItems[0]!;
    // The newest order's e-book: its EPUB was uploaded before the audiobooks' MP3s.
    expect(newest.productId).toBe(books.ebooks[4]);
    const { code: orderCode } = await s.t.database.db
      .selectFrom('customer_order')
      .select('code')
      .where('id', '=', newest.orderId)
      .executeTakeFirstOrThrow();
    const { code: productCode, name } = await s.t.database.db
      .selectFrom('product')
      .select(['code', 'name'])
      .where('id', '=', newest.productId)
      .executeTakeFirstOrThrow();
    expect(item).toEqual({
      id: newest.id,
      source: 'ORDER',
      orderCode,
      productId: newest.productId,
      productCode,
      title: name,
      format: 'EPUB',
      contentType: 'application/epub+zip',
      size: 500,
      downloadsUsed: 0,
      downloadsAllowed: 5,
      purchasedAt: new Date(newest.at).toISOString(),
    });
    const takeItem = (await page(alice, '?per-page=100')).json().find((listed: { id: string }) => listed.id.startsWith('S'));
    expect(takeItem).toMatchObject({ source: 'SUBSCRIPTION', orderCode: '' });
  });

  it('counts a download on every format of its purchase or take', async () => {
    const link = async (id: string) => {
      const response = await call(s, alice.customer, 'GET', `/download/${id}/link`);
      expect(response.statusCode, response.body).toBe(200);
      const file = await s.t.app.inject({ method: 'GET', url: new URL(response.json().url).pathname.replace(s.t.config.basePath, '') });
      expect(file.statusCode).toBe(200);
    };
    const bought = aliceItems.find((item) => item.productId === books.ebooks[0] && item.orderId !== 0)!;
    const taken = aliceItems.find((item) => item.productId === books.audiobooks[0] && item.takeId !== 0)!;
    await link(bought.id);
    await link(taken.id);
    await link(taken.id);
    const used = new Map(
      ((await page(alice, '?per-page=100')).json() as Array<{ id: string; downloadsUsed: number }>).map((item) => [
        item.id,
        item.downloadsUsed,
      ]),
    );
    for (const item of aliceItems) {
      const expected = item.orderId === bought.orderId && item.productId === bought.productId ? 1 : item.takeId === taken.takeId ? 2 : 0;
      expect(used.get(item.id), item.id).toBe(expected);
    }
  });

  it("shows a second customer only their own, and another account of the same user nothing of the first's", async () => {
    expect(bobItems).toHaveLength(5);
    expect(await allPages(bob, 2, 5)).toEqual(bobItems.map((item) => item.id));
    const company = { customer: await secondAccountOf(s, alice.customer), id: alice.id };
    expect(await allPages(company, 20, 0)).toEqual([]);
    const stranger = { customer: await createCustomer(s.t.database.db), id: 0 };
    expect(await allPages(stranger, 20, 0)).toEqual([]);
  });

  it('reads a page and the count as a range of download_item_list_idx, in its order, without a sort', async () => {
    const db = s.t.database.db;
    const { db: recorded, statements } = recordingStatements(db);
    const owner = { clientAccountId: alice.customer.clientAccountId, storeCode: 'WEB' };
    const { rows, total } = await downloadPage(recorded, owner, { page: 1, perPage: 20, offset: 0 }, Date.now());
    expect(total).toBe(aliceItems.length);
    expect(rows.map((row) => row.fileId)).toEqual(aliceItems.map((item) => item.fileId));
    // The subscription look-up is compiled on its own too, as a part of both.
    const lists = statements.filter((statement) => statement.sql.includes('from "download_item"'));
    expect(lists).toHaveLength(2);
    for (const statement of lists) {
      const plan = await planOfStatement(db, statement);
      expect(plan, statement.sql).toContain('download_item_list_idx');
      expect(plan, statement.sql).not.toMatch(/TEMP B-TREE|Sort|(?:^|\n)\s*SCAN |Seq Scan/);
    }
  });

  it('drops a revoked purchase and the takes of a subscription that no longer gives access, from the pages and the total', async () => {
    const db = s.t.database.db;
    const revoked = aliceGrants.find((grant) => grant.productId === books.ebooks[3])!.orderId!;
    await db.transaction().execute((trx) => revokeEntitlements(trx, revoked));
    const left = aliceItems.filter((item) => item.orderId !== revoked);
    expect(await allPages(alice, 4, left.length)).toEqual(left.map((item) => item.id));
    await db.updateTable('subscription').set({ status: 'LAPSED' }).where('id', '=', alice.id).execute();
    const bought = left.filter((item) => item.takeId === 0);
    expect(await allPages(alice, 4, bought.length)).toEqual(bought.map((item) => item.id));
    // Bob's list is his own still.
    expect(await allPages(bob, 2, 5)).toEqual(bobItems.map((item) => item.id));
  });

  it.runIf(engine === 'postgres')('lists a purchase and a new file of its product written at the same time, whichever waits', async () => {
    const db = s.t.database.db;
    const productId = books.ebooks[2]!;
    const file = (trx: typeof db, format: string) =>
      trx
        .insertInto('product_file')
        .values({
          product_id: productId,
          format,
          storage_key: `products/${productId}/${format}`,
          content_type: 'application/zip',
          size_bytes: 1,
          filename: 'a.zip',
          created_at: Date.now(),
          updated_at: Date.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
        // As the upload does: the holders' items come from the job queued with the file.
        .then(async (row) => (await queueFileItems(trx, Number(row.id), Date.now()), row));
    const grant = (trx: typeof db, orderId: number) =>
      grantEntitlements(
        trx,
        { id: orderId, client_account_id: alice.customer.clientAccountId },
        [{ product_id: productId, product_type: 'EBOOK', is_digital: true }],
        Date.now(),
      );
    /** Runs `first` in a transaction held open until `second` (in another) has had time to run into it. */
    async function race<A, B>(first: (trx: typeof db) => Promise<A>, second: (trx: typeof db) => Promise<B>): Promise<[A, B]> {
      let written!: () => void;
      let release!: () => void;
      const firstWritten = new Promise<void>((resolve) => (written = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      const one = db.transaction().execute(async (trx) => {
        const result = await first(trx);
        written();
        await released;
        return result;
      });
      await firstWritten;
      const two = db.transaction().execute(second);
      await new Promise((resolve) => setTimeout(resolve, 300));
      release();
      return Promise.all([one, two]);
    }
    const orderA = await buy(alice, [books.ebooks[5]!], Date.now());
    const [fileA] = await race(
      (trx) => file(trx, 'ZIP1'),
      (trx) => grant(trx, orderA),
    );
    const orderB = await buy(alice, [books.ebooks[5]!], Date.now());
    const [, fileB] = await race(
      (trx) => grant(trx, orderB),
      (trx) => file(trx, 'ZIP2'),
    );
    await s.t.drainJobs();
    const ids = ((await page(alice, '?per-page=100')).json() as Array<{ id: string }>).map((item) => item.id);
    expect(ids).toContain(`${orderA}-${fileA.id}`);
    expect(ids).toContain(`${orderB}-${fileB.id}`);
  });

  it('migration 0600 builds the same items from the purchases and takes as its triggers kept', async () => {
    const db = s.t.database.db;
    const read = () => db.selectFrom('download_item').selectAll().orderBy('order_id').orderBy('take_id').orderBy('file_id').execute();
    const kept = await read();
    expect(kept.length).toBeGreaterThan(aliceItems.length);
    await downloadItemMigration.down(db);
    // In a transaction, as the Migrator runs it: on PostgreSQL it locks the tables it reads (LOCK TABLE needs one).
    await db.transaction().execute((trx) => downloadItemMigration.up(trx));
    expect(await read()).toEqual(kept);
  });
});

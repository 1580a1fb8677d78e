import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KyselyPlugin, QueryId } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { createImporter } from '../../src/infra/import/index.js';
import { discountPercent } from '../../src/modules/catalogue/index.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { book, ndjson, postFeed } from '../integrations/helpers.js';

// The two rules about an e-book's physicalBook hold when two imports cross: the back office's
// products import (the CLI, another process) and a supplier's feed (a request) at once; each kind
// holds its own import lock, so only they can. One import is paused right after the read its check
// rests on while the other runs: the second must either wait for the first's line to commit and
// then see it, or have been seen by it. The check and the write of a line are one transaction, so
// on PostgreSQL the other waits on the row lock the check took (lockWaiters), and on SQLite behind
// the open transaction (a pause: nothing counts that wait). With the check read before the line's
// transaction, the other import ran in the gap and an e-book ended linked to what is no BOOK.

/** The pause armed by pausedAfter, seen by the app's handle and the CLI's alike. */
let armed: { sql: RegExp; during: () => Promise<unknown>; started?: Promise<unknown> } | undefined;
const matched = new Set<QueryId>();
const pausing: KyselyPlugin = {
  transformQuery({ node, queryId }) {
    if (armed && !armed.started && armed.sql.test(t.database.db.getExecutor().compileQuery(node, queryId).sql)) matched.add(queryId);
    return node;
  },
  async transformResult({ result, queryId }) {
    if (!armed || armed.started || !matched.delete(queryId)) return result;
    const running = (armed.started = armed.during());
    let settled = false;
    running.then(
      () => (settled = true),
      () => (settled = true),
    );
    if (engine === 'postgres') {
      await until('the other import to finish or wait on a lock', async () => settled || (await lockWaiters(t.database.db)) >= 1);
    } else {
      await Promise.race([running.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
    return result;
  },
};

/** The database as the app and the CLI see it: every statement through `pausing`. */
function pausable(database: DatabaseHandle): DatabaseHandle {
  const db = database.db.withPlugin(pausing);
  const handle: DatabaseHandle = {
    ...database,
    db,
    readDb: database.readDb === database.db ? db : database.readDb.withPlugin(pausing),
    get replicaReads() {
      return handle;
    },
    close: async () => {},
  };
  return handle;
}

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp({ wrapDatabase: pausable });
  dir = mkdtempSync(join(tmpdir(), 'storefront-physical-book-race-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `first`, whose first statement matching `sql` hands back its rows only once `during` has
 * finished or is held up by `first`: waits on a lock (PostgreSQL), or has not finished in a second
 * (SQLite, where it waits for the open transaction). Both answers, once both are done.
 */
async function pausedAfter<A, B>(sql: RegExp, first: () => Promise<A>, during: () => Promise<B>): Promise<[A, B]> {
  const pause: NonNullable<typeof armed> = { sql, during };
  armed = pause;
  try {
    const answer = await first();
    if (!pause.started) throw new Error(`no statement matched ${sql}`);
    return [answer, (await pause.started) as B];
  } finally {
    armed = undefined;
  }
}

const ebook = (code: string, physicalBook: string) => book(code, { type: 'EBOOK', physicalBook });

let files = 0;
/** The back office's products import as `storefront import products --force` runs it: the lines it reported. */
async function backOffice(lines: unknown[]): Promise<string[]> {
  files += 1;
  const file = join(dir, `lines-${files}.ndjson`);
  writeFileSync(file, ndjson(lines) + '\n');
  const reported: string[] = [];
  const importer = createImporter(importKinds, { db: pausable(t.database).db, clock: systemClock, log: t.app.log });
  await importer.start('products', { force: true })(file, (line) => reported.push(line));
  return reported;
}

const TYPE_READ = /^select "type" from "product" where "id" = /;
const LINKED_READ = /^select "id", "code" from "product" where "physical_book_id" = /;

/** The products' types and the codes of their physical books. */
const stored = (codes: string[]) =>
  t.database.db
    .selectFrom('product as p')
    .leftJoin('product as b', 'b.id', 'p.physical_book_id')
    .select(['p.code', 'p.type', 'b.code as physicalBook'])
    .where('p.code', 'in', codes)
    .orderBy('p.code')
    .execute();

const stillLinked = (book: string, linked: string) =>
  `/type: product "${book}" is the physical book (BOOK) of ${linked}, and no accepted line of this file changes their physicalBook; ` +
  'link them to another book (or to none) first, or keep its type BOOK';

describe('an e-book linked while its BOOK is retyped by another import', () => {
  it('refuses the retype that comes while the link is being made, once the link is in', async () => {
    const secret = await addSupplier(t.database.db, 'RACE1', 'Race One', Date.now());
    const feed = (lines: unknown[]) => postFeed(t, 'RACE1', 'products', ndjson(lines), secret);
    expect((await feed([book('R1-BOOK')])).json().errors).toEqual([]);
    // The back office links its e-book to the supplier's BOOK; the feed makes that BOOK an e-book meanwhile.
    const [reported, response] = await pausedAfter(
      TYPE_READ,
      () => backOffice([ebook('BO-E1', 'R1-BOOK')]),
      () => feed([book('R1-BOOK', { type: 'EBOOK' })]),
    );
    expect(reported).toEqual([]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([{ line: 1, message: stillLinked('R1-BOOK', '"BO-E1"') }]);
    expect(await stored(['BO-E1', 'R1-BOOK'])).toEqual([
      { code: 'BO-E1', type: 'EBOOK', physicalBook: 'R1-BOOK' },
      { code: 'R1-BOOK', type: 'BOOK', physicalBook: null },
    ]);
  });

  it('refuses the link that comes while the BOOK is being retyped, once the retype is in', async () => {
    const secret = await addSupplier(t.database.db, 'RACE2', 'Race Two', Date.now());
    expect(await backOffice([book('BO-B2')])).toEqual([]);
    // The back office makes its BOOK an e-book; the supplier's feed links an e-book to it meanwhile.
    const [reported, response] = await pausedAfter(
      LINKED_READ,
      () => backOffice([book('BO-B2', { type: 'EBOOK' })]),
      () => postFeed(t, 'RACE2', 'products', ndjson([ebook('R2-E1', 'BO-B2')]), secret),
    );
    expect(reported).toEqual([]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      { line: 1, message: '/physicalBook: product "BO-B2" is of type EBOOK, not a physical book (BOOK)' },
    ]);
    expect(await stored(['BO-B2', 'R2-E1'])).toEqual([{ code: 'BO-B2', type: 'EBOOK', physicalBook: null }]);
  });

  it('refuses the retype that comes while a link to a later line of the file is made after the file', async () => {
    const secret = await addSupplier(t.database.db, 'RACE3', 'Race Three', Date.now());
    // R3-E1's line names R3-BOOK, new and later in the feed: the link is made once the feed was read.
    // The back office makes R3-BOOK an e-book meanwhile.
    const [response, reported] = await pausedAfter(
      TYPE_READ,
      () => postFeed(t, 'RACE3', 'products', ndjson([ebook('R3-E1', 'R3-BOOK'), book('R3-BOOK')]), secret),
      () => backOffice([book('R3-BOOK', { type: 'EBOOK' })]),
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([]);
    expect(reported).toEqual([`line 1: ${stillLinked('R3-BOOK', '"R3-E1"')}`]);
    expect(await stored(['R3-BOOK', 'R3-E1'])).toEqual([
      { code: 'R3-BOOK', type: 'BOOK', physicalBook: null },
      { code: 'R3-E1', type: 'EBOOK', physicalBook: 'R3-BOOK' },
    ]);
  });
});

describe("a supplier's feed and the back office's creating the same product", () => {
  it("leaves the back office's product created while the supplier's line for its code ran as the back office's (a bad line)", async () => {
    const secret = await addSupplier(t.database.db, 'RACE4', 'Race Four', Date.now());
    // The supplier's line finds no product R4-NEW; the back office creates it before the line is written.
    const [response, reported] = await pausedAfter(
      /^select "supplier_id" from "product" where "code" = /,
      () => postFeed(t, 'RACE4', 'products', ndjson([book('R4-NEW', { name: 'The supplier name' })]), secret),
      () => backOffice([book('R4-NEW', { name: 'The back office name' })]),
    );
    expect(reported).toEqual([]);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([{ line: 1, message: `/code: product "R4-NEW" is not one of this supplier's products` }]);
    const product = await t.database.db
      .selectFrom('product')
      .select(['name', 'supplier_id'])
      .where('code', '=', 'R4-NEW')
      .executeTakeFirstOrThrow();
    expect(product).toEqual({ name: 'The back office name', supplier_id: null });
  });
});

describe("the back office's price feed and product feed changing one product at once", () => {
  it("leaves a product's discount the one its stored prices give", async () => {
    const prices = async (lines: unknown[]) => {
      files += 1;
      const file = join(dir, `lines-${files}.ndjson`);
      writeFileSync(file, ndjson(lines) + '\n');
      const reported: string[] = [];
      const importer = createImporter(importKinds, { db: pausable(t.database).db, clock: systemClock, log: t.app.log });
      await importer.start('prices', { force: false })(file, (line) => reported.push(line));
      return reported;
    };
    expect(await backOffice([book('R5-P', { shopPrice: 12, originalPrice: 20 })])).toEqual([]);
    // The price feed lowers nothing but the shop price; the product feed raises the list price meanwhile.
    const [pricesReported, productsReported] = await pausedAfter(
      /^select "shop_price_cents", "original_price_cents"/,
      () => prices([{ product: 'R5-P', shopPrice: 15 }]),
      () => backOffice([book('R5-P', { shopPrice: 12, originalPrice: 30 })]),
    );
    expect([pricesReported, productsReported]).toEqual([[], []]);
    const product = await t.database.db
      .selectFrom('product')
      .select(['shop_price_cents', 'original_price_cents', 'discount_percent'])
      .where('code', '=', 'R5-P')
      .executeTakeFirstOrThrow();
    expect(product.original_price_cents).toBe(3000);
    expect(product.discount_percent).toBe(discountPercent(product.shop_price_cents, product.original_price_cents));
  });
});

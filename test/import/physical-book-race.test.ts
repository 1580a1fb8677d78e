import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely, KyselyPlugin, QueryId } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { importKinds } from '../../src/import-kinds.js';
import { systemClock } from '../../src/infra/clock.js';
import { addSupplier } from '../../src/modules/integrations/suppliers.service.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { book, ndjson, postFeed } from '../integrations/helpers.js';

// The two rules about an e-book's physicalBook hold when two imports cross: the back office's
// products import (the CLI, another process) and a supplier's feed (a request) at once. One import
// is paused right after the read its check rests on while the other runs: the second must either
// wait for the first's line to commit and then see it, or have been seen by it. The check and the
// write of a line are one transaction, so on PostgreSQL the other waits on the row lock the check
// took (lockWaiters), and on SQLite behind the open transaction (a pause: nothing counts that wait).
// With the check read before the line's transaction, the other import ran in the gap and the
// catalogue ended with an e-book linked to a product that is no BOOK.

let t: TestApp;
let dir: string;
beforeAll(async () => {
  t = await createTestApp();
  dir = mkdtempSync(join(tmpdir(), 'storefront-physical-book-race-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const ebook = (code: string, physicalBook: string) => book(code, { type: 'EBOOK', physicalBook });

let files = 0;
/** The back office's products import as `storefront import products --force` runs it, on `db`. */
async function backOffice(db: Kysely<Database>, lines: unknown[]): Promise<string[]> {
  files += 1;
  const file = join(dir, `lines-${files}.ndjson`);
  writeFileSync(file, ndjson(lines) + '\n');
  const reported: string[] = [];
  await importKinds.products!.create({ db, clock: systemClock }, { force: true })(file, (line) => reported.push(line));
  return reported;
}

/**
 * A handle on the test's database whose first statement matching `pattern` (its SQL) hands back its
 * rows only once `during` has finished, or is held up by the paused import: waits on a lock
 * (PostgreSQL), or has not finished in a second (SQLite, where it waits for the open transaction).
 * `result` is `during`'s answer once it was started.
 */
function pausedAfter<T>(pattern: RegExp, during: () => Promise<T>): { db: Kysely<Database>; result: () => Promise<T> } {
  const db = t.database.db;
  const matched = new Set<QueryId>();
  let started: Promise<T> | undefined;
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (!started && pattern.test(db.getExecutor().compileQuery(node, queryId).sql)) matched.add(queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (started || !matched.has(queryId)) return result;
      const running = (started = during());
      let settled = false;
      running.then(
        () => (settled = true),
        () => (settled = true),
      );
      if (engine === 'postgres') {
        await until('the other import to finish or wait on a lock', async () => settled || (await lockWaiters(db)) >= 1);
      } else {
        await Promise.race([running.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000))]);
      }
      return result;
    },
  };
  return {
    db: db.withPlugin(plugin),
    result: () => {
      if (!started) throw new Error(`no statement matched ${pattern}`);
      return started;
    },
  };
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
    const paused = pausedAfter(TYPE_READ, () => feed([book('R1-BOOK', { type: 'EBOOK' })]));
    expect(await backOffice(paused.db, [ebook('BO-E1', 'R1-BOOK')])).toEqual([]);
    const response = await paused.result();
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([{ line: 1, message: stillLinked('R1-BOOK', '"BO-E1"') }]);
    expect(await stored(['BO-E1', 'R1-BOOK'])).toEqual([
      { code: 'BO-E1', type: 'EBOOK', physicalBook: 'R1-BOOK' },
      { code: 'R1-BOOK', type: 'BOOK', physicalBook: null },
    ]);
  });

  it('refuses the link that comes while the BOOK is being retyped, once the retype is in', async () => {
    const secret = await addSupplier(t.database.db, 'RACE2', 'Race Two', Date.now());
    expect(await backOffice(t.database.db, [book('BO-B2')])).toEqual([]);
    // The back office makes its BOOK an e-book; the supplier's feed links an e-book to it meanwhile.
    const paused = pausedAfter(LINKED_READ, () => postFeed(t, 'RACE2', 'products', ndjson([ebook('R2-E1', 'BO-B2')]), secret));
    expect(await backOffice(paused.db, [book('BO-B2', { type: 'EBOOK' })])).toEqual([]);
    const response = await paused.result();
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([
      { line: 1, message: '/physicalBook: product "BO-B2" is of type EBOOK, not a physical book (BOOK)' },
    ]);
    expect(await stored(['BO-B2', 'R2-E1'])).toEqual([{ code: 'BO-B2', type: 'EBOOK', physicalBook: null }]);
  });

  it('refuses the retype that comes while a link to a later line of the file is made after the file', async () => {
    // BO-E3's line names BO-B3, new and later in the file: the link is made once the file was read.
    // Another back-office import (the CLI run twice at once) makes BO-B3 an e-book meanwhile.
    const paused = pausedAfter(TYPE_READ, () => backOffice(t.database.db, [book('BO-B3', { type: 'EBOOK' })]));
    expect(await backOffice(paused.db, [ebook('BO-E3', 'BO-B3'), book('BO-B3')])).toEqual([]);
    expect(await paused.result()).toEqual([`line 1: ${stillLinked('BO-B3', '"BO-E3"')}`]);
    expect(await stored(['BO-B3', 'BO-E3'])).toEqual([
      { code: 'BO-B3', type: 'BOOK', physicalBook: null },
      { code: 'BO-E3', type: 'EBOOK', physicalBook: 'BO-B3' },
    ]);
  });
});

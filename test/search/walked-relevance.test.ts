import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as hiddenWordsMigration from '../../src/db/migrations/2026_11_27_1710_index_search_hidden.js';
import { GUEST } from '../../src/modules/catalogue/index.js';
import { createEngine, FOLD_BATCH, foldBatch, readState } from '../../src/modules/search/index.js';
import { WALK_MIN_TITLED, walkedRelevancePage, walkPays, walkTiers } from '../../src/modules/search/relevance-walk.repository.js';
import type { SearchScope } from '../../src/modules/search/search-query.js';
import { createPerson, createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { createBulkProducts } from './bulk-catalogue.js';
import { get } from './fixtures.js';

// A text that finds over 2,000 products by their titles: on SQLite its first pages by relevance are walked in
// sales order (relevance-walk.repository.ts) and its total is counted from the text index alone (the `hidden`
// words, migration 1710). Both must give what the rule gives, computed here from the rows themselves:
// out of stock last, then the tier (every word in the title, in title and persons, elsewhere), then
// sales, then id; only products the caller sees in the store, counted again after every kind of
// change to what decides that. PostgreSQL ranks every match; the same expectations hold there.

let t: TestApp;
let business: TestCustomer;
/** The "Other book"s' tiers: "bulk" is in their persons (1) or their tags (2). */
const tierOf = new Map<number, number>();

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  // PostgreSQL walks nothing: there the rule needs only enough matches for the pages checked.
  await createBulkProducts(t, engine === 'sqlite' ? 2_600 : 700, 'BULK', { fold: false });
  // Every kind of product a walk passes: out of stock, hidden from either audience, inactive, in the other store
  // only. Few of the title matches are in stock, so the first pages cross from the title's tier to the persons'
  // and the tags' (the "Other book"s, mostly in stock) and on to the products out of stock.
  await sql`update product set availability = 'TEMPORARILY_OUT_OF_STOCK' where id % 40 <> 0`.execute(db);
  await sql`update product set availability = 'PERMANENTLY_OUT_OF_STOCK' where id % 11 = 0`.execute(db);
  await sql`update product set hidden_web = ${true} where id % 13 = 0`.execute(db);
  await sql`update product set hidden_business = ${true} where id % 17 = 0`.execute(db);
  await sql`update product set is_active = ${false} where id % 19 = 0`.execute(db);
  await sql`update product set sales_count = 1000 + id where id % 29 = 0`.execute(db);
  await sql`delete from product_store where product_id % 23 = 0`.execute(db);
  await sql`insert into product_store (product_id, store_code) select id, 'WEB2' from product where id % 3 = 0`.execute(db);
  const author = await createPerson(db, 'Bulk Author');
  for (let n = 0; n < 30; n++) {
    const byPerson = n % 2 === 0;
    const id = await createProduct(db, {
      name: `Other book ${n}`,
      ...(byPerson ? { persons: [{ id: author }] } : { altNames: ['bulk edition'] }),
      salesCount: 2_000 + n,
      availability: n % 6 === 0 ? 'TEMPORARILY_OUT_OF_STOCK' : 'AVAILABLE',
    });
    tierOf.set(id, byPerson ? 1 : 2);
  }
  business = await createCustomer(db, { kind: 'BUSINESS' });
  await foldQueued();
});

/** Folds every queued change, as a process's background does within a second. */
async function foldQueued(): Promise<void> {
  const searchEngine = createEngine(t.database);
  while ((await foldBatch(t.database, searchEngine, FOLD_BATCH, Date.now())) > 0);
}
afterAll(() => t.close());

const CLASS: Record<string, number> = { TEMPORARILY_OUT_OF_STOCK: 1, PERMANENTLY_OUT_OF_STOCK: 2 };

/** The rule's order of what "bulk" finds for an audience in a store, from the product rows. */
async function expected(store: string, audience: 'R' | 'B'): Promise<number[]> {
  const rows = await t.database.db
    .selectFrom('product as p')
    .select(['p.id', 'p.name', 'p.availability', 'p.sales_count', 'p.is_active', 'p.hidden_web', 'p.hidden_business'])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('product_store as ps')
          .select('ps.product_id')
          .whereRef('ps.product_id', '=', 'p.id')
          .where('ps.store_code', '=', store),
      ),
    )
    .where((eb) => eb.or(['Bulk book%', 'Other book%'].map((name) => eb('p.name', 'like', name))))
    .execute();
  const visible = rows.filter((row) => Boolean(row.is_active) && !(audience === 'R' ? row.hidden_web : row.hidden_business));
  const tier = (row: (typeof rows)[number]) => tierOf.get(row.id) ?? 0;
  const key = (row: (typeof rows)[number]) => [CLASS[row.availability] ?? 0, tier(row), -row.sales_count, -row.id];
  return visible
    .sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      const index = x.findIndex((value, i) => value !== y[i]);
      return index < 0 ? 0 : x[index]! - y[index]!;
    })
    .map((row) => row.id);
}

async function searched(store: string, customer: TestCustomer | undefined, page: number) {
  return get<Array<{ id: number }>>(t, `/product/search?q=bulk&per-page=20&page=${page}`, customer, store);
}

describe('a broad text by relevance', () => {
  it.each([
    ['WEB', 'R'],
    ['WEB', 'B'],
    ['WEB2', 'R'],
  ] as const)('pages and totals in %s for audience %s are the rule applied to the rows', async (store, audience) => {
    const customer = audience === 'B' ? business : undefined;
    const order = await expected(store, audience);
    for (let page = 1; page <= 6; page++) {
      const { body, total } = await searched(store, customer, page);
      expect(total, `page ${page}`).toBe(order.length);
      expect(
        body.map((card) => card.id),
        `page ${page}`,
      ).toEqual(order.slice((page - 1) * 20, page * 20));
    }
  });

  it('keeps the total exact as products are hidden, shown, deactivated and moved between stores', async () => {
    const db = t.database.db;
    const [first, second, third] = (await expected('WEB', 'R')).slice(0, 3);
    const changes = [
      sql`update product set hidden_web = ${true} where id = ${first}`,
      sql`update product set hidden_business = ${true} where id = ${second}`,
      sql`update product set is_active = ${false} where id = ${third}`,
      sql`delete from product_store where product_id = ${second} and store_code = 'WEB'`,
      sql`insert into product_store (product_id, store_code) values (${second}, 'WEB2')`,
      sql`update product set hidden_web = ${false} where id = ${first}`,
      sql`update product set is_active = ${true} where id = ${third}`,
      sql`insert into product_store (product_id, store_code) values (${second}, 'WEB')`,
    ];
    const check = async (when: string) => {
      for (const [store, customer, audience] of [
        ['WEB', undefined, 'R'],
        ['WEB', business, 'B'],
        ['WEB2', undefined, 'R'],
      ] as const) {
        const order = await expected(store, audience);
        const { body, total } = await searched(store, customer, 1);
        expect(total, `${when}, ${store} ${audience}`).toBe(order.length);
        expect(
          body.map((card) => card.id),
          `${when}, ${store} ${audience}`,
        ).toEqual(order.slice(0, 20));
      }
    };
    for (const [index, change] of changes.entries()) {
      // Searched at once (the change waits to be folded: rows are counted), then once folded (SQLite's index counts).
      await change.execute(db);
      await check(`change ${index}`);
      await foldQueued();
      if (engine === 'sqlite') await check(`change ${index}, folded`);
    }
    // About 40 searches of 2,600 matches each on SQLite: seconds on a loaded CI machine.
  }, 60_000);

  it('answers at once after a visibility change of more products than searches wait for', async () => {
    const db = t.database.db;
    await sql`update product set hidden_business = ${true} where name like 'Bulk book%'`.execute(db);
    expect(await readState(db)).toMatchObject({ status: 'ready', backlog: 0, queued: engine === 'sqlite' });
    const { total } = await searched('WEB', business, 1);
    expect(total).toBe((await expected('WEB', 'B')).length);
    await sql`update product set hidden_business = ${false} where name like 'Bulk book%' and id % 17 <> 0`.execute(db);
    await foldQueued();
  });
});

describe.runIf(engine === 'sqlite')('the walk itself (SQLite)', () => {
  const scope = (): SearchScope => {
    const searchEngine = createEngine(t.database);
    const query = { terms: ['bulk'], prefix: true };
    return {
      storeCode: 'WEB',
      caller: GUEST,
      store: { guestDiscountPercent: 0, loggedInDiscountPercent: 0 },
      now: Date.now(),
      filter: {},
      text: { kind: 'match', matches: searchEngine.matchProducts(query), unranked: searchEngine.matchProducts(query, 0), query },
    };
  };

  it('reads the pages the search answered, and gives up (for the ranked read) where its cap ends it short', async () => {
    await foldQueued();
    const searchEngine = createEngine(t.database);
    const tiers = walkTiers(searchEngine, scope(), 0, 20)!;
    expect(tiers).toHaveLength(3);
    // So the searches above were walked in WEB: enough title matches, nothing waiting to be folded.
    const query = { terms: ['bulk'], prefix: true };
    const counts = async (titledUpTo?: number) =>
      (await searchEngine.countVisibleMatches(query, 'WEB', 'R', undefined, titledUpTo)!.execute(t.database.db)).rows[0]!;
    const counted = await counts(WALK_MIN_TITLED);
    expect(walkPays(counted.titled)).toBe(true);
    expect(counted.n).toBe((await expected('WEB', 'R')).length);
    // The title matches are counted only as far as the walk's question goes; the total is counted whole.
    expect(counted.titled).toBe(WALK_MIN_TITLED);
    expect((await counts(WALK_MIN_TITLED + 50)).titled).toBe(WALK_MIN_TITLED + 50);
    expect(await counts()).toEqual({ n: counted.n, titled: null });
    const order = await expected('WEB', 'R');
    expect(await walkedRelevancePage(t.database.db, searchEngine, scope(), tiers, 40, 20)).toEqual(order.slice(40, 60));
    expect(await walkedRelevancePage(t.database.db, searchEngine, scope(), tiers, 0, 20, 10)).toBeUndefined();
    // Past the window, or with a filter, pages are ranked instead.
    expect(walkTiers(searchEngine, scope(), 100, 20)).toBeUndefined();
    expect(walkTiers(searchEngine, { ...scope(), filter: { types: ['BOOK'] } }, 0, 20)).toBeUndefined();
  });

  it('writes the same hidden words when a document is folded as migration 1710 wrote from the documents before it', async () => {
    const db = t.database.db;
    await foldQueued();
    const read = async () =>
      (await sql<{ id: number; hidden: string }>`select rowid as id, hidden from search_product_fts order by rowid`.execute(db)).rows;
    const folded = await read();
    expect(folded.filter((row) => row.hidden !== '').length).toBeGreaterThan(100);
    await hiddenWordsMigration.down(db);
    await hiddenWordsMigration.up(db);
    expect(await read()).toEqual(folded);
  });
});

describe.runIf(engine === 'sqlite')('the title matches that decide a walk (SQLite)', () => {
  // Counted for a word typed whole first (no prefix expansion), then for the prefix where those are fewer than
  // asked: the same number as the prefix's own count up to that many, for a word typed whole or in part.
  it('are the visible products with every word in the title, up to the number asked', async () => {
    await foldQueued();
    const searchEngine = createEngine(t.database);
    const titled = async (terms: string[], upTo: number) =>
      (await searchEngine.countVisibleMatches({ terms, prefix: true }, 'WEB', 'R', undefined, upTo)!.execute(t.database.db)).rows[0]!
        .titled;
    // The "Bulk book"s hold both words in the title; the "Other book"s hold "bulk" elsewhere.
    const inTitles = (await expected('WEB', 'R')).filter((id) => !tierOf.has(id)).length;
    expect(inTitles).toBeGreaterThan(WALK_MIN_TITLED);
    for (const terms of [['bulk'], ['bul'], ['book', 'bulk'], ['bulk', 'boo']]) {
      for (const upTo of [WALK_MIN_TITLED, inTitles, inTitles + 10]) {
        expect(await titled(terms, upTo), `${terms.join(' ')}* up to ${upTo}`).toBe(Math.min(upTo, inTitles));
      }
    }
    expect(await titled(['bulkx'], WALK_MIN_TITLED)).toBe(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { PRODUCT_TYPES } from '../../src/db/product-types.js';
import { boundedCache } from '../../src/infra/bounded-cache.js';
import { GUEST, type Caller } from '../../src/modules/catalogue/caller.js';
import { PRODUCT_FILTER_KEYS, type ProductFilter } from '../../src/modules/catalogue/product-filter.js';
import { productPage, type ListPricing } from '../../src/modules/catalogue/product-query.js';
import { campaignRunsAt, leastFor } from '../../src/modules/pricing/index.js';
import { createEngine } from '../../src/modules/search/index.js';
import { scopedProducts } from '../../src/modules/search/search-query.js';
import { generateCatalogue, random, type GeneratedCatalogue } from '../helpers/generated-catalogue.js';
import { migratedScratchDatabase } from '../helpers/test-app.js';

// One product filter, two compilers: product-query.ts over `product` (lists) and search-query.ts
// over `search_product` (search). On a generated catalogue, every filter (and random
// combinations of them) must select the same products through both, for every kind of caller.
// FILTER_SEED replays another catalogue.

const SEED = Number(process.env.FILTER_SEED ?? 11_2026);
const DAY = 86_400_000;
const STORE = 'WEB';
const NO_STORE_DISCOUNTS = { guestDiscountPercent: 0, loggedInDiscountPercent: 0 };

let handle: DatabaseHandle;
let drop: () => Promise<void>;
let c: GeneratedCatalogue;

const caller = (kind: Caller['kind']): Caller => ({
  ...GUEST,
  kind,
  clientCode: kind === 'GUEST' ? null : 'X1',
  clientAccountId: kind === 'GUEST' ? null : 1,
});
const CALLERS: Caller[] = [caller('GUEST'), caller('SIMPLE'), caller('BUSINESS'), caller('WHOLESALE')];

beforeAll(async () => {
  const scratch = await migratedScratchDatabase();
  drop = scratch.drop;
  handle = createDatabase(scratch.url);
  await migrateToLatest(handle);
  c = await generateCatalogue(handle.db, { seed: SEED, products: 250, now: Date.now() });
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await drop?.();
});

async function listed(who: Caller, filter: ProductFilter): Promise<number[]> {
  const caches = {
    counts: boundedCache<string, number>(0, 1),
    pages: boundedCache<string, number[]>(0, 1),
    levels: boundedCache<string, Array<[number, number]>>(0, 1),
  };
  // The discounts a retail caller's cards show (the discounted filter), with the store's discounts search is given.
  const pricing: ListPricing = {
    store: NO_STORE_DISCOUNTS,
    runningCampaignIds: async () =>
      (
        await handle.db
          .selectFrom('campaign')
          .select(['id', 'valid_from', 'valid_to'])
          .where('store_code', '=', STORE)
          .where('is_active', '=', true)
          .execute()
      )
        .filter((row) => campaignRunsAt({ validFrom: row.valid_from, validTo: row.valid_to }, c.now))
        .map((row) => row.id),
    priceOf: async () => new Map(),
    least: leastFor(handle.engine),
    sqlFromOffset: 200,
  };
  const { ids, total } = await productPage(
    handle.db,
    caches,
    { storeCode: STORE, caller: who, filter, sort: 'newest', offset: 0, limit: 100_000, now: c.now },
    undefined,
    pricing,
  );
  expect(ids.length).toBe(total);
  return [...ids].sort((a, b) => a - b);
}

async function searched(who: Caller, filter: ProductFilter): Promise<number[]> {
  const scope = {
    storeCode: STORE,
    caller: who,
    store: NO_STORE_DISCOUNTS,
    now: c.now,
    text: { kind: 'none' as const },
    filter,
  };
  const rows = (await scopedProducts(handle.db, createEngine(handle), scope).select('sp.id').execute()) as Array<{ id: number }>;
  return rows.map((row) => Number(row.id)).sort((a, b) => a - b);
}

/** Values of each filter worth trying on the generated catalogue, unknown ids and empty lists included. */
function valuesOf(key: keyof ProductFilter): ProductFilter[] {
  switch (key) {
    case 'categoryIds':
      return [...c.categoryIds.map((id) => [id]), c.categoryIds.slice(0, 2), c.categoryIds.slice(2), [], [999_999]].map((categoryIds) => ({
        categoryIds,
      }));
    case 'personId':
      return [...c.personIds, 999_999].map((personId) => ({ personId }));
    case 'personRole':
      return [
        { personRole: 'AUTHOR' },
        ...c.personIds.slice(0, 3).flatMap((personId) => [
          { personId, personRole: 'AUTHOR' as const },
          { personId, personRole: 'EDITOR' as const },
        ]),
      ];
    case 'publisherId':
      return [...c.publisherIds, 999_999].map((publisherId) => ({ publisherId }));
    case 'seriesId':
      return [...c.seriesIds, 999_999].map((seriesId) => ({ seriesId }));
    case 'productListId':
      return [...Object.values(c.lists), 999_999].map((productListId) => ({ productListId }));
    case 'campaignId':
      return [...Object.values(c.campaigns), 999_999].map((campaignId) => ({ campaignId }));
    case 'types':
      return [...PRODUCT_TYPES.map((type) => [type]), ['BOOK', 'EBOOK'] as (typeof PRODUCT_TYPES)[number][], []].map((types) => ({
        types,
      }));
    case 'discounted':
      return [{ discounted: true }, { discounted: false }];
    case 'minSales':
      return [0, 1, 10, 100, 1_000].map((minSales) => ({ minSales }));
    case 'releasedSince':
      return [30, 90, 400].map((days) => ({ releasedSince: c.now - days * DAY })).concat([{ releasedSince: c.now + DAY }]);
    case 'excludeIds':
      return [[], c.productIds.slice(0, 1), c.productIds.slice(0, 50)].map((excludeIds) => ({ excludeIds }));
  }
}

describe(`the list and the search compile the product filter alike (seed ${SEED})`, () => {
  it.each(PRODUCT_FILTER_KEYS)('%s', async (key) => {
    let nonEmpty = 0;
    for (const filter of valuesOf(key)) {
      for (const who of CALLERS) {
        const fromList = await listed(who, filter);
        expect(await searched(who, filter), `${who.kind} ${JSON.stringify(filter)}`).toEqual(fromList);
        if (fromList.length > 0) nonEmpty += 1;
      }
    }
    // A filter that selected nothing anywhere would agree without proving anything.
    expect(nonEmpty).toBeGreaterThan(0);
  });

  it('random combinations of filters', async () => {
    const r = random(SEED);
    let nonEmpty = 0;
    for (let i = 0; i < 40; i += 1) {
      const keys = r.some(PRODUCT_FILTER_KEYS, 3);
      const filter = Object.assign({}, ...keys.map((key) => r.pick(valuesOf(key)))) as ProductFilter;
      for (const who of CALLERS) {
        const fromList = await listed(who, filter);
        expect(await searched(who, filter), `${who.kind} ${JSON.stringify(filter)}`).toEqual(fromList);
        if (fromList.length > 0) nonEmpty += 1;
      }
    }
    expect(nonEmpty).toBeGreaterThan(20);
  });

  it('lists nothing for a campaign that is not running or a list that is not shown, though they hold products', async () => {
    const held = async (table: 'campaign_price' | 'product_list_item', column: 'campaign_id' | 'product_list_id', id: number) =>
      Number(
        (
          await handle.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where(column, '=', id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    for (const state of ['expired', 'future', 'endsNow', 'switchedOff', 'otherStore'] as const) {
      expect(await held('campaign_price', 'campaign_id', c.campaigns[state]), state).toBeGreaterThan(0);
      for (const who of CALLERS) {
        expect(await listed(who, { campaignId: c.campaigns[state] }), `${state} ${who.kind}`).toEqual([]);
        expect(await searched(who, { campaignId: c.campaigns[state] }), `${state} ${who.kind}`).toEqual([]);
      }
    }
    for (const state of ['inactive', 'otherStore'] as const) {
      expect(await held('product_list_item', 'product_list_id', c.lists[state]), state).toBeGreaterThan(0);
      for (const who of CALLERS) expect(await searched(who, { productListId: c.lists[state] }), `${state} ${who.kind}`).toEqual([]);
    }
    for (const state of ['running', 'openEnded', 'startsNow'] as const) {
      expect((await searched(GUEST, { campaignId: c.campaigns[state] })).length, state).toBeGreaterThan(0);
    }
  });
});

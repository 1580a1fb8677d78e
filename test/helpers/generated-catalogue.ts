import type { Kysely } from 'kysely';
import { PRODUCT_TYPES, type ProductTypeCode } from '../../src/db/product-types.js';
import type { Database } from '../../src/db/schema.js';
import type { Availability, PersonRole } from '../../src/modules/catalogue/index.js';
import {
  createCampaign,
  createCategory,
  createPerson,
  createProduct,
  createProductList,
  createPublisher,
  createSeries,
} from './catalogue.js';

// A random catalogue from a seed, for tests that compare two forms of one rule (the SQL and the
// TypeScript price, the list and the search filter) over many products instead of a few picked
// by hand: every price shape (list price above, at and below the shop price, wholesale or none,
// VAT from 0 to 24 %, free products), every product type, hidden, inactive and other-store
// products, and campaigns and product lists in every state. The same seed gives the same catalogue.

const DAY = 86_400_000;

export interface GeneratedCatalogue {
  now: number;
  productIds: number[];
  categoryIds: number[];
  personIds: number[];
  publisherIds: number[];
  seriesIds: number[];
  /** Lists in every state, named by it (active, inactive, other store, empty). */
  lists: Record<'active' | 'inactive' | 'otherStore' | 'empty', number>;
  /** Campaigns in every state, named by it. */
  campaigns: Record<CampaignState, number>;
}

export type CampaignState = 'running' | 'openEnded' | 'startsNow' | 'endsNow' | 'expired' | 'future' | 'switchedOff' | 'otherStore';

export interface GenerateOptions {
  seed: number;
  products: number;
  /** Unix ms the campaigns are placed around. */
  now: number;
  /** Companies that get their own prices for some products (wholesale callers). */
  companyIds?: number[];
}

/** A small deterministic generator (mulberry32): tests print the seed, so a failure can be replayed. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const between = (low: number, high: number) => low + Math.floor(next() * (high - low + 1));
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const chance = (p: number) => next() < p;
  /** Up to `most` of the values (fewer when some are drawn twice), at least `least` draws. */
  const some = <T>(values: readonly T[], most: number, least = 0): T[] => [
    ...new Set(Array.from({ length: between(least, most) }, () => pick(values))),
  ];
  return { next, between, pick, chance, some };
}

// Books dominate, as in the shop; the types with their own price rules (e-books, gift cards) are frequent enough to matter.
const TYPES: readonly ProductTypeCode[] = [...PRODUCT_TYPES, 'BOOK', 'BOOK', 'BOOK', 'EBOOK', 'EBOOK', 'GIFT_CARD', 'VIRTUAL_GIFT_CARD'];
const VAT_RATES = [0, 5.5, 9, 9, 20, 22, 24];
const AVAILABILITIES: readonly Availability[] = [
  'AVAILABLE',
  'AVAILABLE',
  'AVAILABLE_IN_SHOP',
  'TEMPORARILY_OUT_OF_STOCK',
  'PERMANENTLY_OUT_OF_STOCK',
  'COMING_SOON',
];
const ROLES: readonly PersonRole[] = ['AUTHOR', 'AUTHOR', 'ILLUSTRATOR', 'TRANSLATOR', 'EDITOR'];

export async function generateCatalogue(db: Kysely<Database>, options: GenerateOptions): Promise<GeneratedCatalogue> {
  const r = random(options.seed);
  const { now } = options;
  const roots = [await createCategory(db, { et: 'Juur A' }), await createCategory(db, { et: 'Juur B' })];
  const children = [
    await createCategory(db, { et: 'Laps A1' }, { parentId: roots[0] }),
    await createCategory(db, { et: 'Laps A2' }, { parentId: roots[0] }),
    await createCategory(db, { et: 'Laps B1' }, { parentId: roots[1] }),
  ];
  const grandchild = await createCategory(db, { et: 'Lapselaps A11' }, { parentId: children[0] });
  const categoryIds = [...roots, ...children, grandchild];
  const personIds = [];
  for (let i = 0; i < 6; i += 1) personIds.push(await createPerson(db, `Isik ${i}`));
  const publisherIds = [];
  for (let i = 0; i < 4; i += 1) publisherIds.push(await createPublisher(db, `Kirjastus ${i}`));
  const seriesIds = [];
  for (let i = 0; i < 3; i += 1) seriesIds.push(await createSeries(db, `Sari ${i}`, { publisherId: publisherIds[i] }));

  const productIds: number[] = [];
  for (let i = 0; i < options.products; i += 1) {
    const shop = r.pick([0, 1, 5, 99, 2150, r.between(100, 30_000), r.between(100, 30_000), r.between(100, 30_000)]);
    const original = r.pick([null, 0, Math.max(0, shop - r.between(1, 500)), shop, shop + r.between(1, 5_000), shop + r.between(1, 5_000)]);
    const wholesale = r.pick([null, 0, r.between(1, Math.max(1, shop)), r.between(1, 20_000)]);
    const id = await createProduct(db, {
      type: r.pick(TYPES),
      price: shop / 100,
      originalPrice: original === null ? null : original / 100,
      wholesalePrice: wholesale === null ? null : wholesale / 100,
      vatRate: r.pick(VAT_RATES),
      stores: r.pick([['WEB'], ['WEB'], ['WEB'], ['WEB', 'WEB2'], ['WEB2'], []]),
      active: r.chance(0.9),
      hiddenWeb: r.chance(0.12),
      hiddenBusiness: r.chance(0.12),
      categoryIds: r.some(categoryIds, 2),
      persons: r.some(personIds, 2).map((person) => ({ id: person, role: r.pick(ROLES) })),
      publisherId: r.chance(0.7) ? r.pick(publisherIds) : null,
      seriesId: r.chance(0.3) ? r.pick(seriesIds) : null,
      availability: r.pick(AVAILABILITIES),
      salesCount: r.pick([0, 0, r.between(1, 10), r.between(1, 500)]),
      releasedAt: r.chance(0.15) ? null : now + r.between(-400, 30) * DAY,
    });
    productIds.push(id);
  }

  // Several campaigns may price one product: the lowest running one for the caller's kind wins.
  const campaignPrices = () =>
    r.some(productIds, Math.ceil(productIds.length / 3), 5).flatMap((productId) => {
      const prices: Array<{ productId: number; price: number; kind: 'RETAIL' | 'BUSINESS' }> = [];
      const business = r.chance(0.5);
      if (!business || r.chance(0.8)) prices.push({ productId, price: r.between(0, 25_000) / 100, kind: 'RETAIL' });
      if (business) prices.push({ productId, price: r.between(0, 25_000) / 100, kind: 'BUSINESS' });
      return prices;
    });
  const campaign = (validFrom: number | null, validTo: number | null, extra: { active?: boolean; store?: string } = {}) =>
    createCampaign(db, { validFrom, validTo, ...extra, prices: campaignPrices() });
  const campaigns: Record<CampaignState, number> = {
    running: await campaign(now - DAY, now + DAY),
    openEnded: await campaign(null, null),
    // Valid from is inclusive and valid to exclusive, in the lists and in pricing alike.
    startsNow: await campaign(now, null),
    endsNow: await campaign(now - DAY, now),
    expired: await campaign(now - 3 * DAY, now - DAY),
    future: await campaign(now + DAY, null),
    switchedOff: await campaign(null, null, { active: false }),
    otherStore: await campaign(null, null, { store: 'WEB2' }),
  };

  const lists = {
    active: await createProductList(db, r.some(productIds, 40, 5)),
    inactive: await createProductList(db, r.some(productIds, 20, 5)),
    otherStore: await createProductList(db, r.some(productIds, 20, 5), { store: 'WEB2' }),
    empty: await createProductList(db, []),
  };
  await db.updateTable('product_list').set({ is_active: false }).where('id', '=', lists.inactive).execute();

  for (const companyId of options.companyIds ?? []) {
    const priced = r.some(productIds, Math.ceil(productIds.length / 4));
    if (priced.length === 0) continue;
    await db
      .insertInto('company_product_price')
      .values(priced.map((product_id) => ({ company_id: companyId, product_id, price_cents: r.pick([0, r.between(1, 20_000)]) })))
      .execute();
  }
  return { now, productIds, categoryIds, personIds, publisherIds, seriesIds, lists, campaigns };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import {
  callerPriceSql,
  type CampaignPriceRead,
  priceFor,
  type CampaignPrice,
  type PricedProduct,
  type PriceSource,
  type PricingCaller,
  type StoreDiscounts,
} from '../../src/modules/pricing/index.js';
import { createEngine } from '../../src/modules/search/index.js';
import { createCustomer } from '../helpers/customers.js';
import { generateCatalogue } from '../helpers/generated-catalogue.js';
import { migratedScratchDatabase } from '../helpers/test-app.js';

// Pricing has two forms of one rule: priceFor (TypeScript, for cards and exports) and
// callerPriceSql (SQL, for search filters and sorts). On a generated catalogue, every product's
// SQL price and discount must equal the TypeScript ones, for every kind of caller and a spread
// of store, client and company discounts. PRICING_SEED replays another catalogue.

const SEED = Number(process.env.PRICING_SEED ?? 20_261_122);
const NOW = Date.UTC(2026, 5, 1, 12);
const STORE = 'WEB';
const STORE_DISCOUNTS: StoreDiscounts[] = [
  { guestDiscountPercent: 0, loggedInDiscountPercent: 0 },
  { guestDiscountPercent: 5, loggedInDiscountPercent: 10 },
  { guestDiscountPercent: 12.5, loggedInDiscountPercent: 7 },
  { guestDiscountPercent: 33.3333, loggedInDiscountPercent: 33.3333 },
];

let handle: DatabaseHandle;
let drop: () => Promise<void>;
let callers: Array<[string, PricingCaller]>;
/** The products as pricing.ts takes them, and each wholesale company's own prices. */
let products: Map<number, PricedProduct>;
let companyPrices: Map<string, number>;

beforeAll(async () => {
  const scratch = await migratedScratchDatabase();
  drop = scratch.drop;
  handle = createDatabase(scratch.url);
  await migrateToLatest(handle);
  const db = handle.db;
  const companies = [
    (await createCustomer(db, { kind: 'WHOLESALE' })).companyId!,
    (await createCustomer(db, { kind: 'WHOLESALE' })).companyId!,
  ];
  await generateCatalogue(db, { seed: SEED, products: 400, now: NOW, companyIds: companies });

  const caller = (kind: PricingCaller['kind'], client = 0, company = 0, companyId: number | null = null): PricingCaller => ({
    kind,
    clientDiscountPercent: client,
    companyDiscountPercent: company,
    companyId,
  });
  callers = [
    ['guest', caller('GUEST')],
    ...[0, 5, 12.5, 15, 33.3333, 100].map((percent): [string, PricingCaller] => [`retail ${percent} %`, caller('SIMPLE', percent)]),
    ...[0, 7, 12.3456, 30, 100].map((percent): [string, PricingCaller] => [
      `business ${percent} %`,
      caller('BUSINESS', 0, percent, companies[0]!),
    ]),
    ['wholesale with own prices', caller('WHOLESALE', 0, 0, companies[0]!)],
    ['wholesale with other own prices', caller('WHOLESALE', 0, 0, companies[1]!)],
    ['wholesale without a company', caller('WHOLESALE')],
  ];

  const rows = await db
    .selectFrom('product')
    .select(['id', 'type', 'shop_price_cents', 'original_price_cents', 'wholesale_price_cents', 'vat_rate_percent'])
    .execute();
  // The campaigns the catalogue passes to pricing: the store's switched-on ones; pricing itself decides which run now.
  const campaigns = await db
    .selectFrom('campaign_price')
    .innerJoin('campaign', 'campaign.id', 'campaign_price.campaign_id')
    .select([
      'campaign_price.product_id',
      'campaign_price.customer_kind',
      'campaign_price.price_cents',
      'campaign.valid_from',
      'campaign.valid_to',
    ])
    .where('campaign.store_code', '=', STORE)
    .where('campaign.is_active', '=', true)
    .execute();
  products = new Map(
    rows.map((row) => [
      row.id,
      {
        type: row.type,
        shopPriceCents: row.shop_price_cents,
        originalPriceCents: row.original_price_cents,
        wholesalePriceCents: row.wholesale_price_cents,
        vatRatePercent: row.vat_rate_percent,
        campaignPrices: campaigns
          .filter((campaign) => campaign.product_id === row.id)
          .map((campaign): CampaignPrice => ({
            customerKind: campaign.customer_kind,
            priceCents: campaign.price_cents,
            validFrom: campaign.valid_from ?? undefined,
            validTo: campaign.valid_to ?? undefined,
          })),
      },
    ]),
  );
  const own = await db.selectFrom('company_product_price').selectAll().execute();
  companyPrices = new Map(own.map((row) => [`${row.company_id}:${row.product_id}`, row.price_cents]));
}, 120_000);

afterAll(async () => {
  await handle?.close();
  await drop?.();
});

async function sqlPrices(
  caller: PricingCaller,
  store: StoreDiscounts,
  campaigns: CampaignPriceRead = 'join',
): Promise<Map<number, { price: number; discount: number }>> {
  const price = callerPriceSql(createEngine(handle), { caller, store, storeCode: STORE, now: NOW }, campaigns);
  // The price reads search_product (sp) and its joins, as search does.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let query = (handle.db as any).selectFrom('search_product as sp');
  for (const join of price.joins) query = query.leftJoin(join.table.as(join.alias), `${join.alias}.product_id`, 'sp.id');
  const rows = (await query.select(['sp.id', price.price.as('price'), price.discount.as('discount')]).execute()) as Array<{
    id: number;
    price: number;
    discount: number;
  }>;
  return new Map(rows.map((row) => [Number(row.id), { price: Number(row.price), discount: Number(row.discount) }]));
}

describe(`the caller's price in SQL equals pricing.ts on a generated catalogue (seed ${SEED})`, () => {
  it('for guests, retail, business and wholesale customers, with every store discount', async () => {
    const sources = new Map<string, Set<PriceSource>>();
    let compared = 0;
    for (const store of STORE_DISCOUNTS) {
      for (const [who, caller] of callers) {
        const inSql = await sqlPrices(caller, store);
        expect(inSql.size, who).toBe(products.size);
        const wrong: string[] = [];
        for (const [id, product] of products) {
          const customer = {
            kind: caller.kind,
            clientDiscountPercent: caller.clientDiscountPercent,
            companyDiscountPercent: caller.companyDiscountPercent,
            companyCustomPriceCents: companyPrices.get(`${caller.companyId}:${id}`),
          };
          const expected = priceFor(product, customer, store, NOW);
          const found = inSql.get(id);
          if (found?.price !== expected.priceCents || found.discount !== expected.discountPercent) {
            wrong.push(
              `product ${id} ${JSON.stringify(product)}: SQL ${JSON.stringify(found)}, pricing.ts ${expected.priceCents} (${expected.discountPercent} %, ${expected.source})`,
            );
          }
          const kind = caller.kind;
          sources.set(kind, (sources.get(kind) ?? new Set()).add(expected.source));
          compared += 1;
        }
        expect(wrong, `${who}, store ${JSON.stringify(store)}`).toEqual([]);
        // Campaign prices looked up per product (a text search's matches) are the same prices.
        expect(await sqlPrices(caller, store, 'lookup'), `${who}, looked up`).toEqual(inSql);
      }
    }
    expect(compared).toBe(STORE_DISCOUNTS.length * callers.length * products.size);
    // The catalogue exercised every rule of each kind, or an agreement would prove little.
    expect([...sources.get('GUEST')!].sort()).toEqual(['campaign', 'shop', 'store-discount']);
    expect([...sources.get('SIMPLE')!].sort()).toEqual(['campaign', 'client-discount', 'shop', 'store-discount']);
    expect([...sources.get('BUSINESS')!].sort()).toEqual(['campaign', 'company-discount', 'shop']);
    expect([...sources.get('WHOLESALE')!].sort()).toEqual(['custom', 'shop-excl-vat', 'wholesale']);
  });
});

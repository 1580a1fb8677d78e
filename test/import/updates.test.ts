import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueImportKinds } from '../../src/modules/catalogue-import/kinds.js';
import { createImportTestApp, loadReferences, type ImportTestApp } from './helpers.js';

let t: ImportTestApp;
beforeAll(async () => {
  t = await createImportTestApp();
  await loadReferences(t);
  const book = (code: string, shopPrice: number, originalPrice: number | null = null) => ({
    code,
    type: 'BOOK',
    name: code,
    stores: ['WEB', 'WEB2'],
    shopPrice,
    originalPrice,
    vatRate: 9,
    availability: 'AVAILABLE',
  });
  const result = await t.run('products', [book('B1', 10, 20), book('B2', 15), book('B3', 9.99)]);
  if (result.errors > 0) throw new Error(result.reported.join('\n'));
  const now = Date.now();
  for (const name of ['Firma OÜ', 'Firma OÜ (teine konto)']) {
    await t.database.db
      .insertInto('company')
      .values({
        name,
        registry_code: '10000001',
        street: 'Rüütli 2',
        city: 'Tartu',
        postcode: '51007',
        country_code: 'EE',
        created_at: now,
      })
      .execute();
  }
});
afterAll(() => t.close());

const product = (code: string) => t.database.db.selectFrom('product').selectAll().where('code', '=', code).executeTakeFirstOrThrow();

describe('import stock', () => {
  it('upserts stock rows and keeps web_stock to the shops whose stock is sold on the web', async () => {
    const lines = [
      { product: 'B1', shop: 'SHOP1', quantity: 5 },
      { product: 'B1', shop: 'SHOP2', quantity: 7 },
      { product: 'B2', shop: 'SHOP1', quantity: 1 },
      { product: 'B2', shop: 'NOPE', quantity: 1 },
      { product: 'NOPE', shop: 'SHOP1', quantity: 1 },
      { product: 'B3', shop: 'SHOP1', quantity: -1 },
      { product: 'B3', shop: 'SHOP1', quantity: 1.5 },
    ];
    const result = await t.run('stock', lines);
    expect(result.outcomes).toEqual({ created: 3 });
    expect(result.reported).toEqual([
      'line 4: /shop: unknown shop "NOPE"',
      'line 5: /product: unknown product "NOPE"',
      expect.stringMatching(/^line 6: \/quantity: /),
      expect.stringMatching(/^line 7: \/quantity: /),
    ]);
    expect((await product('B1')).web_stock).toBe(5);
    expect((await product('B2')).web_stock).toBe(1);

    const before = await t.snapshot();
    expect((await t.run('stock', lines.slice(0, 3))).outcomes).toEqual({ unchanged: 3 });
    expect(await t.snapshot()).toEqual(before);

    expect((await t.run('stock', [{ product: 'B1', shop: 'SHOP1', quantity: 2 }])).outcomes).toEqual({ updated: 1 });
    expect((await product('B1')).web_stock).toBe(2);
  });
});

describe('import prices', () => {
  it('changes some prices of a product and keeps discount_percent with them', async () => {
    const result = await t.run('prices', [
      { product: 'B2', originalPrice: 20 },
      { product: 'B3', shopPrice: 0.29, wholesalePrice: 0.2, vatRate: 22 },
      { product: 'B1', originalPrice: null },
    ]);
    expect(result.reported).toEqual([]);
    expect(result.outcomes).toEqual({ updated: 3 });
    expect(await product('B2')).toMatchObject({ shop_price_cents: 1500, original_price_cents: 2000, discount_percent: 25 });
    expect(await product('B3')).toMatchObject({
      shop_price_cents: 29,
      wholesale_price_cents: 20,
      vat_rate_percent: 22,
      original_price_cents: null,
    });
    expect(await product('B1')).toMatchObject({ shop_price_cents: 1000, original_price_cents: null, discount_percent: 0 });

    const before = await t.snapshot();
    expect((await t.run('prices', [{ product: 'B2', originalPrice: 20, shopPrice: 15 }])).outcomes).toEqual({ unchanged: 1 });
    expect(await t.snapshot()).toEqual(before);
  });

  it('sets and removes company prices by registry code, for every company record of it', async () => {
    const prices = () => t.database.db.selectFrom('company_product_price').select('price_cents').orderBy('company_id').execute();
    expect((await t.run('prices', [{ product: 'B1', company: '10000001', price: 8.5 }])).outcomes).toEqual({ created: 1 });
    expect(await prices()).toEqual([{ price_cents: 850 }, { price_cents: 850 }]);
    expect((await t.run('prices', [{ product: 'B1', company: '10000001', price: 8.5 }])).outcomes).toEqual({ unchanged: 1 });
    expect((await t.run('prices', [{ product: 'B1', company: '10000001', price: 8 }])).outcomes).toEqual({ updated: 1 });
    expect(await prices()).toEqual([{ price_cents: 800 }, { price_cents: 800 }]);
    expect((await t.run('prices', [{ product: 'B1', company: '10000001', price: null }])).outcomes).toEqual({ updated: 1 });
    expect(await prices()).toEqual([]);
  });

  it('refuses bad price lines whole', async () => {
    const before = await t.snapshot();
    const result = await t.run('prices', [
      { product: 'B1' },
      { product: 'B1', shopPrice: 1.999 },
      { product: 'B1', shopPrice: -2 },
      { product: 'B1', company: '10000001', price: 5, shopPrice: 4 },
      { product: 'B1', company: '99999999', price: 5 },
      { product: 'B1', price: 5 },
      { product: 'NOPE', shopPrice: 5 },
      { product: 'B1', shopPrice: '5.00' },
    ]);
    expect(result.reported.map((text) => text.split(':')[0])).toEqual([
      'line 1',
      'line 2',
      'line 3',
      'line 4',
      'line 5',
      'line 6',
      'line 7',
      'line 8',
    ]);
    expect(result.reported[1]).toContain('two decimals');
    expect(result.reported[4]).toContain('no company with registry code "99999999"');
    expect(await t.snapshot()).toEqual(before);
  });
});

describe('import campaigns', () => {
  const campaign = {
    code: 'XMAS',
    store: 'WEB',
    validFrom: '2026-12-01',
    validTo: '2026-12-24',
    active: true,
    position: 1,
    names: { et: 'Jõulud', en: 'Christmas' },
    prices: [
      { product: 'B1', customerKind: 'RETAIL', price: 7.99 },
      { product: 'B1', customerKind: 'BUSINESS', price: 7.5 },
      { product: 'B2', customerKind: 'RETAIL', price: 12 },
    ],
  };
  const priceRows = async () =>
    t.database.db
      .selectFrom('campaign_price')
      .innerJoin('product', 'product.id', 'campaign_price.product_id')
      .select(['product.code', 'customer_kind', 'price_cents'])
      .orderBy('position')
      .execute();

  it('imports a campaign; its price rows are replaced by the file', async () => {
    expect((await t.run('campaigns', [campaign])).outcomes).toEqual({ created: 1 });
    const row = await t.database.db.selectFrom('campaign').selectAll().where('code', '=', 'XMAS').executeTakeFirstOrThrow();
    // Dates alone are Tallinn days (UTC+2 in December); the end is the end of that day (exclusive).
    expect([row.valid_from, row.valid_to]).toEqual([Date.UTC(2026, 10, 30, 22), Date.UTC(2026, 11, 24, 22)]);
    expect(await priceRows()).toHaveLength(3);

    const before = await t.snapshot();
    expect((await t.run('campaigns', [campaign])).outcomes).toEqual({ unchanged: 1 });
    expect(await t.snapshot()).toEqual(before);

    const changed = { ...campaign, validTo: '2026-12-24T22:00:00+02:00', prices: [{ product: 'B3', customerKind: 'RETAIL', price: 5 }] };
    expect((await t.run('campaigns', [changed])).outcomes).toEqual({ updated: 1 });
    expect(await priceRows()).toEqual([{ code: 'B3', customer_kind: 'RETAIL', price_cents: 500 }]);
  });

  it('refuses bad campaigns whole', async () => {
    const before = await t.snapshot();
    const result = await t.run('campaigns', [
      { ...campaign, prices: [{ product: 'NOPE', customerKind: 'RETAIL', price: 1 }] },
      {
        ...campaign,
        prices: [
          { product: 'B1', customerKind: 'RETAIL', price: 1 },
          { product: 'B1', customerKind: 'RETAIL', price: 2 },
        ],
      },
      { ...campaign, validFrom: '2026-12-24', validTo: '2026-12-01' },
      { ...campaign, store: 'SHOP' },
      { ...campaign, prices: [{ product: 'B1', customerKind: 'WHOLESALE', price: 1 }] },
    ]);
    expect(result.reported.map((text) => text.split(':')[0])).toEqual(['line 1', 'line 2', 'line 3', 'line 4', 'line 5']);
    expect(result.reported[0]).toContain('unknown product "NOPE"');
    expect(result.reported[1]).toContain('listed twice');
    expect(await t.snapshot()).toEqual(before);
  });
});

describe('import product lists and quotes', () => {
  it('imports product lists with their items in order', async () => {
    const list = { code: 'PICKS', store: 'WEB2', names: { et: 'Valik' }, products: ['B3', 'B1'] };
    expect((await t.run('product-lists', [list])).outcomes).toEqual({ created: 1 });
    const before = await t.snapshot();
    expect((await t.run('product-lists', [list])).outcomes).toEqual({ unchanged: 1 });
    expect(await t.snapshot()).toEqual(before);
    expect((await t.run('product-lists', [{ ...list, products: ['B1', 'B3'] }])).outcomes).toEqual({ updated: 1 });
    const items = await t.database.db
      .selectFrom('product_list_item')
      .innerJoin('product', 'product.id', 'product_id')
      .select('code')
      .orderBy('position')
      .execute();
    expect(items.map((item) => item.code)).toEqual(['B1', 'B3']);
    const bad = await t.run('product-lists', [{ ...list, products: ['B1', 'NOPE'] }]);
    expect(bad.reported).toEqual(['line 1: /products: unknown product "NOPE"']);
  });

  it('imports quotes of products and persons', async () => {
    const quotes = [
      { code: 'Q1', product: 'B1', person: 'A1', language: 'et', text: 'Tööd tehes ja vaeva nähes tuleb ka armastus.' },
      { code: 'Q2', person: 'A2', language: 'en', text: 'A quote.' },
    ];
    expect((await t.run('quotes', quotes)).outcomes).toEqual({ created: 2 });
    const before = await t.snapshot();
    expect((await t.run('quotes', quotes)).outcomes).toEqual({ unchanged: 2 });
    expect(await t.snapshot()).toEqual(before);
    expect((await t.run('quotes', [{ ...quotes[1], text: 'Another.' }])).outcomes).toEqual({ updated: 1 });
    const bad = await t.run('quotes', [
      { code: 'Q3', language: 'et', text: 'x' },
      { code: 'Q4', person: 'NOPE', language: 'et', text: 'x' },
      { code: 'Q5', person: 'A1', language: 'de', text: 'x' },
    ]);
    expect(bad.errors).toBe(3);
    expect(bad.reported[1]).toBe('line 2: /person: unknown person "NOPE"');
  });
});

describe('docs/import.md', () => {
  it('has examples that import without a bad line, in the documented order', async () => {
    const docs = await import('node:fs').then((fs) => fs.readFileSync(new URL('../../docs/import.md', import.meta.url), 'utf8'));
    const fresh = await createImportTestApp();
    try {
      await fresh.database.db
        .insertInto('company')
        .values({
          name: 'Firma OÜ',
          registry_code: '10000001',
          street: 'Rüütli 2',
          city: 'Tartu',
          postcode: '51007',
          country_code: 'EE',
          created_at: Date.now(),
        })
        .execute();
      const sections = docs.split(/^## /m).slice(1);
      const ran: string[] = [];
      for (const section of sections) {
        const kinds = [...section.split('\n', 1)[0]!.matchAll(/`import ([a-z-]+)/g)].map((match) => match[1]!);
        // Other kinds (users, ...) have their own tests and need other data.
        if (kinds.length === 0 || !kinds.every((kind) => kind in catalogueImportKinds)) continue;
        const blocks = [...section.matchAll(/```json\n([\s\S]*?)```/g)].map((match) => match[1]!.trim().split('\n'));
        expect(blocks.length, section.slice(0, 40)).toBe(kinds.length);
        for (const [index, kind] of kinds.entries()) {
          const result = await fresh.run(kind, blocks[index]!);
          expect(result.reported, kind).toEqual([]);
          ran.push(kind);
        }
      }
      expect(ran).toEqual([
        'publishers',
        'persons',
        'series',
        'categories',
        'shops',
        'products',
        'stock',
        'prices',
        'campaigns',
        'product-lists',
        'quotes',
      ]);
    } finally {
      await fresh.close();
    }
  });
});

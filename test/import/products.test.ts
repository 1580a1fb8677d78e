import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImportTestApp, loadReferences, type ImportTestApp } from './helpers.js';

let t: ImportTestApp;
beforeAll(async () => {
  t = await createImportTestApp();
  await loadReferences(t);
});
afterAll(() => t.close());

const book = (code: string, extra: Record<string, unknown> = {}) => ({
  code,
  type: 'BOOK',
  name: `Raamat ${code}`,
  stores: ['WEB'],
  shopPrice: 19.99,
  vatRate: 9,
  availability: 'AVAILABLE',
  ...extra,
});

const product = (code: string) => t.database.db.selectFrom('product').selectAll().where('code', '=', code).executeTakeFirst();

describe('import products', () => {
  it('imports a full product with its references, keeping the derived columns', async () => {
    const full = book('P-FULL', {
      ean: '978-0-306-40615-7',
      altCodes: ['0-306-40615-2', '080442957X'],
      name: 'Tõde ja õigus',
      altNames: ['Tõde ja õigus I'],
      description: 'Romaan.',
      language: 'et',
      binding: 'HARDCOVER',
      year: 1926,
      pages: 480,
      widthMm: 140,
      heightMm: 210,
      weightG: 650,
      publisher: 'PUB1',
      series: 'S1',
      seriesNumber: 1,
      persons: [
        { code: 'A1', role: 'AUTHOR' },
        { code: 'A2', role: 'EDITOR' },
      ],
      categories: ['C-NOVELS', 'C2-OUTLET'],
      stores: ['WEB', 'WEB2'],
      assets: [
        { kind: 'SAMPLE', url: 'https://cdn.example.ee/p-full.pdf', mimeType: 'application/pdf' },
        { kind: 'IMAGE', url: 'https://cdn.example.ee/p-full.jpg', width: 600, height: 900 },
      ],
      shopPrice: 21.5,
      originalPrice: 29.9,
      wholesalePrice: 15.01,
      deliveryTime: 'DAYS_1_7',
      releasedAt: '2024-09-01',
      salesCount: 12,
    });
    const result = await t.run('products', [full]);
    expect(result.reported).toEqual([]);
    expect(result.outcomes).toEqual({ created: 1 });

    const row = (await product('P-FULL'))!;
    expect(row).toMatchObject({
      ean: '9780306406157',
      language: 'ET',
      binding_code: 'HARDCOVER',
      shop_price_cents: 2150,
      original_price_cents: 2990,
      wholesale_price_cents: 1501,
      vat_rate_percent: 9,
      discount_percent: 28,
      image_url: 'https://cdn.example.ee/p-full.jpg',
      released_at: Date.UTC(2024, 8, 1),
      sales_count: 12,
      alt_names: JSON.stringify(['Tõde ja õigus I']),
    });
    expect(Boolean(row.is_active)).toBe(true);
    const db = t.database.db;
    const altCodes = await db.selectFrom('product_alt_code').select('code').where('product_id', '=', row.id).orderBy('code').execute();
    expect(altCodes.map((r) => r.code)).toEqual(['0306406152', '080442957X']);
    const persons = await db
      .selectFrom('product_person')
      .innerJoin('person', 'person.id', 'product_person.person_id')
      .select(['person.code', 'role', 'position'])
      .where('product_id', '=', row.id)
      .orderBy('position')
      .execute();
    expect(persons).toEqual([
      { code: 'A1', role: 'AUTHOR', position: 0 },
      { code: 'A2', role: 'EDITOR', position: 1 },
    ]);
    const stores = await db
      .selectFrom('product_store')
      .select('store_code')
      .where('product_id', '=', row.id)
      .orderBy('store_code')
      .execute();
    expect(stores.map((r) => r.store_code)).toEqual(['WEB', 'WEB2']);
    const categories = await db
      .selectFrom('product_category')
      .innerJoin('category', 'category.id', 'category_id')
      .select('code')
      .where('product_id', '=', row.id)
      .orderBy('code')
      .execute();
    expect(categories.map((r) => r.code)).toEqual(['C-NOVELS', 'C2-OUTLET']);
  });

  it('is idempotent: the same file again writes nothing, not even updated_at', async () => {
    const lines = [
      book('P-IDEM-1', { related: ['P-IDEM-2'], assets: [{ kind: 'IMAGE', url: 'https://cdn.example.ee/1.jpg' }] }),
      book('P-IDEM-2', { persons: [{ code: 'A1', role: 'AUTHOR' }] }),
      book('P-FULL'),
    ];
    const first = await t.run('products', lines, { force: true });
    expect(first.reported).toEqual([]);
    const before = await t.snapshot();
    const again = await t.run('products', lines);
    expect(again.reported).toEqual([]);
    expect(again.outcomes).toEqual({ unchanged: 3 });
    expect(await t.snapshot()).toEqual(before);
  });

  it('updates what changed and replaces the lists that differ', async () => {
    await t.run('products', [book('P-UPD', { persons: [{ code: 'A1', role: 'AUTHOR' }], altNames: ['x'] })], { force: true });
    const before = (await product('P-UPD'))!;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const result = await t.run(
      'products',
      [
        book('P-UPD', {
          persons: [
            { code: 'A2', role: 'AUTHOR' },
            { code: 'A1', role: 'AUTHOR' },
          ],
          shopPrice: 10,
          originalPrice: 20,
        }),
      ],
      { force: true },
    );
    expect(result.outcomes).toMatchObject({ updated: 1 });
    const after = (await product('P-UPD'))!;
    expect(after.updated_at).toBeGreaterThan(before.updated_at);
    expect(after.created_at).toBe(before.created_at);
    expect(after).toMatchObject({ shop_price_cents: 1000, discount_percent: 50, alt_names: '[]' });
    const persons = await t.database.db
      .selectFrom('product_person')
      .innerJoin('person', 'person.id', 'person_id')
      .select('person.code')
      .where('product_id', '=', after.id)
      .orderBy('position')
      .execute();
    expect(persons.map((r) => r.code)).toEqual(['A2', 'A1']);
  });

  it('reports bad lines by number and skips each whole', async () => {
    const good = ['P-FULL', 'P-IDEM-1', 'P-IDEM-2', 'P-UPD'].map((code) => book(code));
    await t.run('products', good, { force: true });
    const before = await t.snapshot();
    const lines = [
      '{"code": "broken"',
      book('P-BAD-TYPE', { pages: 'many' }),
      { code: 'P-BAD-MISSING', type: 'BOOK', name: 'x', stores: ['WEB'], vatRate: 9, availability: 'AVAILABLE' },
      book('P-BAD-PUBLISHER', { publisher: 'NOPE' }),
      book('P-BAD-PERSON', {
        persons: [
          { code: 'A1', role: 'AUTHOR' },
          { code: 'NOPE', role: 'AUTHOR' },
        ],
        categories: ['C-NOVELS'],
      }),
      book('P-BAD-CATEGORY', { categories: ['C-NOVELS', 'NOPE'] }),
      book('P-BAD-LONG', { name: 'x'.repeat(501) }),
      book('P-BAD-NEGATIVE', { shopPrice: -1 }),
      book('P-BAD-DECIMALS', { shopPrice: 1.005 }),
      book('P-BAD-ISBN', { ean: '978-0-306-40615-8' }),
      book('P-BAD-DATE', { releasedAt: '2026-02-30' }),
      book('P-BAD-BINDING', { binding: 'SCROLL' }),
      book('P-BAD-RELATED', { related: ['NOWHERE'] }),
      book('P-BAD-UNKNOWN-FIELD', { colour: 'red' }),
      book('x'.repeat(41)),
      ...good,
    ];
    const result = await t.run('products', lines, { force: true });
    expect(result.errors).toBe(15);
    const byLine = Object.fromEntries(result.reported.map((text) => [Number(/^line (\d+)/.exec(text)![1]), text]));
    expect(Object.keys(byLine).map(Number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(byLine[1]).toBe('line 1: not valid JSON');
    expect(byLine[2]).toMatch(/^line 2: \/pages: /);
    expect(byLine[3]).toMatch(/shopPrice/);
    expect(byLine[4]).toBe('line 4: /publisher: unknown publisher "NOPE"');
    expect(byLine[5]).toContain('unknown person "NOPE"');
    expect(byLine[6]).toContain('unknown category "NOPE"');
    expect(byLine[7]).toMatch(/\/name: .*500/);
    expect(byLine[8]).toContain('/shopPrice: must not be negative');
    expect(byLine[9]).toContain('two decimals');
    expect(byLine[10]).toContain('EAN-13/ISBN-13');
    expect(byLine[11]).toContain('not a date');
    expect(byLine[12]).toContain('unknown binding "SCROLL"');
    expect(byLine[13]).toContain('unknown product "NOWHERE"');
    expect(byLine[14]).toMatch(/colour|property/i);
    expect(byLine[15]).toMatch(/\/code: .*40/);
    // The good lines are unchanged; the bad ones left nothing, not even a partly written product.
    expect(result.outcomes).toEqual({ unchanged: 4 });
    expect(await t.snapshot()).toEqual(before);
  });

  it('links to products later in the file once the whole file was read', async () => {
    const lines = [
      book('E-1', { type: 'EBOOK', physicalBook: 'B-1', related: ['B-1', 'E-2'], stores: ['WEB'] }),
      book('E-2', { type: 'EBOOK', related: ['E-1'] }),
      book('B-1', { related: ['E-1'] }),
      ...['P-FULL', 'P-IDEM-1', 'P-IDEM-2', 'P-UPD'].map((code) => book(code)),
    ];
    const result = await t.run('products', lines, { force: true });
    expect(result.reported).toEqual([]);
    const ids = Object.fromEntries(
      (await t.database.db.selectFrom('product').select(['id', 'code']).where('code', 'in', ['E-1', 'E-2', 'B-1']).execute()).map((row) => [
        row.code,
        row.id,
      ]),
    );
    expect((await product('E-1'))!.physical_book_id).toBe(ids['B-1']);
    const related = await t.database.db
      .selectFrom('product_related')
      .select(['related_product_id'])
      .where('product_id', '=', ids['E-1']!)
      .orderBy('position')
      .execute();
    expect(related.map((row) => row.related_product_id)).toEqual([ids['B-1'], ids['E-2']]);

    const before = await t.snapshot();
    const again = await t.run('products', lines);
    expect(again.outcomes).toEqual({ unchanged: 7 });
    expect(await t.snapshot()).toEqual(before);
  });

  it('reports a link to a later product whose own line was bad', async () => {
    const lines = [
      book('E-3', { type: 'EBOOK', physicalBook: 'B-3', related: ['E-1'] }),
      book('B-3', { publisher: 'NOPE' }),
      ...['P-FULL', 'P-IDEM-1', 'P-IDEM-2', 'P-UPD', 'E-1', 'E-2', 'B-1'].map((code) => ({ code })),
    ];
    const result = await t.run('products', lines, { force: true });
    expect(result.reported.filter((text) => !/^line ([3-9]):/.test(text))).toEqual([
      'line 2: /publisher: unknown publisher "NOPE"',
      'line 1: product "B-3" was not imported (its line was bad), so the product is not linked to it',
    ]);
  });
});

describe('the full feed', () => {
  let fresh: ImportTestApp;
  beforeAll(async () => {
    fresh = await createImportTestApp();
    await loadReferences(fresh);
  });
  afterAll(() => fresh.close());

  it('imports into an empty catalogue, then deactivates products the feed drops or marks inactive', async () => {
    const codes = ['F1', 'F2', 'F3', 'F4', 'F5'];
    const first = await fresh.run(
      'products',
      codes.map((code) => book(code)),
    );
    expect(first.outcomes).toEqual({ created: 5 });
    const second = await fresh.run('products', [book('F1'), book('F2'), book('F3', { active: false }), book('F5')]);
    expect(second.outcomes).toEqual({ unchanged: 3, updated: 1, deactivated: 1 });
    expect(await activeCodesOf(fresh)).toEqual(['F1', 'F2', 'F5']);
    // A product comes back when the feed lists it again.
    const third = await fresh.run(
      'products',
      codes.map((code) => book(code)),
    );
    expect(third.outcomes).toEqual({ unchanged: 3, updated: 2 });
  });

  it('refuses a feed that would deactivate more than half of the active catalogue, unless forced', async () => {
    const before = await fresh.snapshot();
    const refused = fresh.run('products', [book('F1'), book('F2'), book('NEW-1')]);
    await expect(refused).rejects.toThrow(/deactivate 3 of the 5 active products/);
    expect(await fresh.snapshot()).toEqual(before);
    // Exactly half is not more than half.
    const fewer = await fresh.run('products', [book('F1'), book('F2'), book('F3'), book('F4', { active: false }), book('NEW-1')]);
    expect(fewer.outcomes).toEqual({ unchanged: 3, created: 1, updated: 1, deactivated: 1 });
    // Exactly half (2 of the 4 active) is not more than half.
    const half = await fresh.run('products', [book('F1'), book('F2')]);
    expect(half.outcomes).toEqual({ unchanged: 2, deactivated: 2 });
    await expect(fresh.run('products', [book('NEW-2')])).rejects.toThrow(/deactivate 2 of the 2 active products/);
    const forced = await fresh.run('products', [book('NEW-2')], { force: true });
    expect(forced.outcomes).toEqual({ created: 1, deactivated: 2 });
    expect(await activeCodesOf(fresh)).toEqual(['NEW-2']);
  });
});

describe('a feed that starts with a byte order mark', () => {
  it('reads line 1 like any other line, in the scan for codes and in the import', async () => {
    const app = await createImportTestApp();
    try {
      await loadReferences(app);
      // As NAV writes it: the mark before the first line's JSON.
      const lines = [`\uFEFF${JSON.stringify(book('BOM-1'))}`, book('BOM-2')];
      const first = await app.run('products', lines);
      expect(first.reported).toEqual([]);
      expect(first.outcomes).toEqual({ created: 2 });
      // The product of line 1 is listed, so the full-feed rule leaves it active.
      const again = await app.run('products', lines);
      expect(again.reported).toEqual([]);
      expect(again.outcomes).toEqual({ unchanged: 2 });
      expect(await activeCodesOf(app)).toEqual(['BOM-1', 'BOM-2']);
    } finally {
      await app.close();
    }
  });
});

describe('a line that gives its code twice', () => {
  it('is a bad line, and leaves alone every product it names, not only the last', async () => {
    const app = await createImportTestApp();
    try {
      await loadReferences(app);
      const first = await app.run('products', [book('DUP-A'), book('DUP-B'), book('DUP-C'), book('DUP-D')]);
      expect(first.outcomes).toEqual({ created: 4 });
      // JSON.parse keeps the last "code" (DUP-B): the first pass must not take DUP-A as unlisted.
      const twice = JSON.stringify(book('DUP-A')).replace(/}$/, ',"code":"DUP-B"}');
      const again = await app.run('products', [twice, book('DUP-C'), book('DUP-D')]);
      expect(again.reported).toEqual([expect.stringMatching(/^line 1: .*"code" is given twice/)]);
      expect(again.outcomes).toEqual({ unchanged: 2 });
      expect(await activeCodesOf(app)).toEqual(['DUP-A', 'DUP-B', 'DUP-C', 'DUP-D']);
    } finally {
      await app.close();
    }
  });
});

describe('a line that is not valid JSON', () => {
  it('is a bad line, and leaves its product as it is when its code can be read, not deactivated', async () => {
    const app = await createImportTestApp();
    try {
      await loadReferences(app);
      const codes = ['BAD-A', 'BAD-B', 'BAD-C', 'BAD-D', 'BAD-E', 'BAD-F', 'BAD-G'];
      const first = await app.run(
        'products',
        codes.map((code) => book(code)),
      );
      expect(first.outcomes).toEqual({ created: 7 });
      // A tab typed into the description as it is (JSON wants \t), and a line cut short, as an
      // export that was interrupted writes it: neither is JSON, but each names its product.
      const tab = JSON.stringify(book('BAD-A', { description: 'Romaan.' })).replace('Romaan.', 'Romaan.\tKõvakaaneline.');
      const cut = JSON.stringify(book('BAD-B', { persons: [{ code: 'A1', role: 'AUTHOR' }] })).slice(0, 40);
      const again = await app.run('products', [
        tab,
        cut,
        ...['BAD-C', 'BAD-D', 'BAD-F', 'BAD-G'].map((code) => book(code)),
        '{"persons":[{"code":"BAD-E"',
        '{"code":"BAD-',
      ]);
      expect(again.reported).toEqual([
        'line 1: not valid JSON',
        'line 2: not valid JSON',
        'line 7: not valid JSON',
        'line 8: not valid JSON',
      ]);
      expect(again.outcomes).toEqual({ unchanged: 4, deactivated: 1 });
      // BAD-E's line names it only inside a person: no line of the file is about it.
      expect(await activeCodesOf(app)).toEqual(['BAD-A', 'BAD-B', 'BAD-C', 'BAD-D', 'BAD-F', 'BAD-G']);
    } finally {
      await app.close();
    }
  });
});

async function activeCodesOf(app: ImportTestApp): Promise<string[]> {
  return (await app.database.db.selectFrom('product').select('code').where('is_active', '=', true).orderBy('code').execute()).map(
    (row) => row.code,
  );
}

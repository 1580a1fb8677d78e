import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImportTestApp, type ImportTestApp } from './helpers.js';

let t: ImportTestApp;
beforeAll(async () => {
  t = await createImportTestApp();
});
afterAll(() => t.close());

const category = (code: string) => t.database.db.selectFrom('category').selectAll().where('code', '=', code).executeTakeFirstOrThrow();

describe('import publishers, persons, series', () => {
  it('upserts by code, reports outcomes, and a second run changes nothing', async () => {
    const publishers = [
      { code: 'P1', name: 'Varrak' },
      { code: 'P2', name: 'Tänapäev', description: 'Kirjastus' },
    ];
    expect((await t.run('publishers', publishers)).outcomes).toEqual({ created: 2 });
    const persons = [{ code: 'A1', name: 'Tammsaare', imageUrl: 'https://cdn.example.ee/a1.jpg' }];
    expect((await t.run('persons', persons)).outcomes).toEqual({ created: 1 });
    const series = [{ code: 'S1', name: 'Eesti romaan', publisher: 'P1' }];
    expect((await t.run('series', series)).outcomes).toEqual({ created: 1 });

    const before = await t.snapshot();
    expect((await t.run('publishers', publishers)).outcomes).toEqual({ unchanged: 2 });
    expect((await t.run('persons', persons)).outcomes).toEqual({ unchanged: 1 });
    expect((await t.run('series', series)).outcomes).toEqual({ unchanged: 1 });
    expect(await t.snapshot()).toEqual(before);

    const changed = await t.run('publishers', [
      { code: 'P1', name: 'Varrak AS' },
      { code: 'P2', name: 'Tänapäev', description: 'Kirjastus' },
    ]);
    expect(changed.outcomes).toEqual({ updated: 1, unchanged: 1 });
    const p1 = await t.database.db.selectFrom('publisher').selectAll().where('code', '=', 'P1').executeTakeFirstOrThrow();
    expect(p1.name).toBe('Varrak AS');
  });

  it('skips bad lines whole and says why', async () => {
    const before = await t.snapshot();
    const result = await t.run('series', [
      { code: 'S2', name: 'Sari', publisher: 'NOPE' },
      { code: 'S3', name: 'x'.repeat(201) },
      { code: 'S4', name: 42 },
      { name: 'no code' },
      { code: ' S5', name: 'leading space' },
      [],
    ]);
    expect(result.reported).toEqual([
      'line 1: /publisher: unknown publisher "NOPE"',
      expect.stringMatching(/^line 2: \/name: .*200/),
      expect.stringMatching(/^line 3: \/name: /),
      expect.stringMatching(/^line 4: .*code/),
      expect.stringMatching(/^line 5: \/code: /),
      expect.stringMatching(/^line 6: /),
    ]);
    expect(await t.snapshot()).toEqual(before);
  });
});

describe('import categories', () => {
  it('computes levels from the parents and refuses unknown parents, other stores and cycles', async () => {
    const result = await t.run('categories', [
      { code: 'ROOT', store: 'WEB', names: { et: 'Raamatud', en: 'Books', ru: 'Книги' }, descriptions: { en: 'All books' } },
      { code: 'MID', store: 'WEB', parent: 'ROOT', position: 2, names: { et: 'Ilukirjandus' } },
      { code: 'LEAF', store: 'WEB', parent: 'MID', names: { et: 'Romaanid' } },
      { code: 'ORPHAN', store: 'WEB', parent: 'LATER', names: { et: 'Orb' } },
      { code: 'LATER', store: 'WEB', names: { et: 'Hiljem' } },
      { code: 'OUTLET', store: 'WEB2', parent: 'ROOT', names: { et: 'Soodus' } },
      { code: 'ROOT', store: 'WEB', parent: 'LEAF', names: { et: 'Raamatud' } },
      { code: 'SELF', store: 'WEB', parent: 'SELF', names: { et: 'Ise' } },
      { code: 'NONAME', store: 'WEB', names: { en: 'No Estonian name' } },
    ]);
    expect(result.reported).toEqual([
      expect.stringMatching(/^line 4: \/parent: unknown category "LATER"/),
      'line 6: /parent: "ROOT" is a category of WEB, not of WEB2',
      'line 7: /parent: "LEAF" is below "ROOT" in the tree; that would make a cycle',
      'line 8: /parent: a category cannot be its own parent',
      expect.stringMatching(/^line 9: \/names\/et: /),
    ]);
    expect(result.outcomes).toEqual({ created: 4 });
    expect((await category('ROOT')).level).toBe(1);
    expect((await category('MID')).level).toBe(2);
    expect((await category('LEAF')).level).toBe(3);
    const names = await t.database.db
      .selectFrom('category_name')
      .select(['language', 'name', 'description'])
      .where('category_id', '=', (await category('ROOT')).id)
      .orderBy('language')
      .execute();
    expect(names).toEqual([
      { language: 'en', name: 'Books', description: 'All books' },
      { language: 'et', name: 'Raamatud', description: null },
      { language: 'ru', name: 'Книги', description: null },
    ]);
  });

  it('moves a subtree: the levels below follow', async () => {
    const lines = [{ code: 'MID', store: 'WEB', parent: 'LATER', position: 2, names: { et: 'Ilukirjandus' } }];
    const result = await t.run('categories', [{ code: 'LATER', store: 'WEB', parent: 'ROOT', names: { et: 'Hiljem' } }, ...lines]);
    expect(result.outcomes).toEqual({ updated: 2 });
    expect([(await category('LATER')).level, (await category('MID')).level, (await category('LEAF')).level]).toEqual([2, 3, 4]);
    const before = await t.snapshot();
    expect((await t.run('categories', lines)).outcomes).toEqual({ unchanged: 1 });
    expect(await t.snapshot()).toEqual(before);
  });

  it('refuses to move a category with subcategories to another store', async () => {
    const result = await t.run('categories', [{ code: 'ROOT', store: 'WEB2', names: { et: 'Raamatud' } }]);
    expect(result.reported).toEqual([expect.stringContaining('line 1: /store: "ROOT" has subcategories')]);
  });
});

describe('import shops', () => {
  it('imports shops with translations; a changed web-stock flag recounts the web stock of their products', async () => {
    const shops = [
      {
        code: 'TLN',
        names: { et: 'Tallinn', en: 'Tallinn shop' },
        openingHours: { et: 'E-R 10-19' },
        city: 'Tallinn',
        webStock: true,
        email: 'tln@example.ee',
      },
      { code: 'TRT', names: { et: 'Tartu' }, city: 'Tartu', webStock: false, position: 2 },
    ];
    expect((await t.run('shops', shops)).outcomes).toEqual({ created: 2 });
    await t.run('publishers', [{ code: 'PX', name: 'X' }]);
    await t.run(
      'products',
      [{ code: 'SP1', type: 'BOOK', name: 'Raamat', stores: ['WEB'], shopPrice: 10, vatRate: 9, availability: 'AVAILABLE' }],
      { force: true },
    );
    await t.run('stock', [
      { product: 'SP1', shop: 'TLN', quantity: 3 },
      { product: 'SP1', shop: 'TRT', quantity: 4 },
    ]);
    const webStock = async () =>
      (await t.database.db.selectFrom('product').select('web_stock').where('code', '=', 'SP1').executeTakeFirstOrThrow()).web_stock;
    expect(await webStock()).toBe(3);

    const before = await t.snapshot();
    expect((await t.run('shops', shops)).outcomes).toEqual({ unchanged: 2 });
    expect(await t.snapshot()).toEqual(before);

    const result = await t.run('shops', [
      { ...shops[0], active: false },
      { ...shops[1], webStock: true },
    ]);
    expect(result.outcomes).toEqual({ updated: 2 });
    expect(await webStock()).toBe(4);
    const bad = await t.run('shops', [
      { ...shops[1], email: 'not an email' },
      { ...shops[1], names: { en: 'Tartu' } },
    ]);
    expect(bad.errors).toBe(2);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImportTestApp, loadReferences, type ImportTestApp } from './helpers.js';

// Strings are plain text: a control character (NUL above all: PostgreSQL cannot store it, SQLite
// stores it silently) makes the line bad with a message that names the field; tabs and line
// breaks are allowed in long texts only.

let t: ImportTestApp;
beforeAll(async () => {
  t = await createImportTestApp();
  await loadReferences(t);
  const result = await t.run('products', [book('T-1')]);
  if (result.errors > 0) throw new Error(result.reported.join('\n'));
});
afterAll(() => t.close());

function book(code: string, extra: Record<string, unknown> = {}) {
  return { code, type: 'BOOK', name: `Raamat ${code}`, stores: ['WEB'], shopPrice: 9.9, vatRate: 9, availability: 'AVAILABLE', ...extra };
}

const NOT_HERE = 'control characters (tabs and line breaks too) are not allowed here';
const NOT_IN_TEXT = 'a text may hold tabs and line breaks, no other control characters';

describe('control characters in imported strings', () => {
  it('make a line bad, naming the field and the character, and nothing is written', async () => {
    const before = await t.snapshot();
    const publishers = await t.run('publishers', [
      { code: 'NUL-1', name: 'Var\u0000rak' },
      { code: 'NUL\u00002', name: 'Varrak' },
      { code: 'NUL-3', name: 'Varrak', description: 'Kirjastus\u0000' },
      { code: 'NUL-4', name: 'Var\trak' },
      { code: 'NUL-5', name: 'Varrak\n' },
      { code: 'NUL-6', name: 'Varrak', description: 'Escape \u001b[31m' },
      { code: 'NUL-7', name: 'Varrak\u007f' },
      { code: 'NUL-8', name: 'Varrak\u0085' },
    ]);
    expect(publishers.reported).toEqual([
      `line 1: /name: contains the control character U+0000; ${NOT_HERE}`,
      `line 2: /code: contains the control character U+0000; ${NOT_HERE}`,
      `line 3: /description: contains the control character U+0000; ${NOT_IN_TEXT}`,
      `line 4: /name: contains the control character U+0009; ${NOT_HERE}`,
      `line 5: /name: contains the control character U+000A; ${NOT_HERE}`,
      `line 6: /description: contains the control character U+001B; ${NOT_IN_TEXT}`,
      `line 7: /name: contains the control character U+007F; ${NOT_HERE}`,
      `line 8: /name: contains the control character U+0085; ${NOT_HERE}`,
    ]);

    const products = await t.run(
      'products',
      [
        book('T-1', { altNames: ['ok', 'a\u0000b'] }),
        book('T-1', { persons: [{ code: 'A1\u0000', role: 'AUTHOR' }] }),
        book('T-1', { assets: [{ kind: 'IMAGE', url: 'https://cdn.example.ee/1.jpg', mimeType: 'image/jpeg\u0000' }] }),
        book('T-1', { assets: [{ kind: 'IMAGE', url: 'https://cdn.example.ee/\u0000.jpg' }] }),
        book('T-1', { description: 'Romaan\u0000' }),
        book('T-1', { ean: '978-0-306-40615-7\u0000' }),
      ],
      { force: true },
    );
    expect(products.reported).toEqual([
      `line 1: /altNames/1: contains the control character U+0000; ${NOT_HERE}`,
      `line 2: /persons/0/code: contains the control character U+0000; ${NOT_HERE}`,
      `line 3: /assets/0/mimeType: contains the control character U+0000; ${NOT_HERE}`,
      `line 4: /assets/0/url: contains the control character U+0000; ${NOT_HERE}`,
      `line 5: /description: contains the control character U+0000; ${NOT_IN_TEXT}`,
      `line 6: /ean: contains the control character U+0000; ${NOT_HERE}`,
    ]);

    const others = [
      await t.run('categories', [{ code: 'C-NUL', store: 'WEB', names: { et: 'Raamatud', en: 'Bo\u0000oks' } }]),
      await t.run('shops', [{ code: 'SHOP-NUL', names: { et: 'Pood' }, city: 'Tallinn', address: 'Viru 4\nTallinn', webStock: true }]),
      await t.run('prices', [{ product: 'T-1', company: '1000\u00000001', price: 1 }]),
      await t.run('quotes', [{ code: 'Q-NUL', product: 'T-1', language: 'et', text: 'Tsitaat\u0000' }]),
      await t.run('campaigns', [
        { code: 'CMP-NUL', store: 'WEB', names: { et: 'Kampaania' }, prices: [{ product: 'T-1\u0000', customerKind: 'RETAIL', price: 1 }] },
      ]),
    ];
    expect(others.map((run) => run.reported)).toEqual([
      [`line 1: /names/en: contains the control character U+0000; ${NOT_HERE}`],
      [`line 1: /address: contains the control character U+000A; ${NOT_HERE}`],
      [`line 1: /company: contains the control character U+0000; ${NOT_HERE}`],
      [`line 1: /text: contains the control character U+0000; ${NOT_IN_TEXT}`],
      [`line 1: /prices/0/product: contains the control character U+0000; ${NOT_HERE}`],
    ]);
    expect(await t.snapshot()).toEqual(before);
  });

  it('allows tabs and line breaks in long texts, and stores them as they are', async () => {
    const description = 'Esimene rida\r\nTeine rida\n\tTaandega rida';
    const result = await t.run('publishers', [{ code: 'TEXT-1', name: 'Varrak', description }]);
    expect(result.reported).toEqual([]);
    const stored = await t.database.db.selectFrom('publisher').select('description').where('code', '=', 'TEXT-1').executeTakeFirstOrThrow();
    expect(stored.description).toBe(description);

    const others = [
      await t.run('products', [book('T-1', { description })], { force: true }),
      await t.run('shops', [
        { code: 'SHOP-TEXT', names: { et: 'Pood' }, openingHours: { et: 'E–R 10–19\nL 10–16' }, city: 'Tallinn', webStock: true },
      ]),
      await t.run('categories', [{ code: 'C-TEXT', store: 'WEB', names: { et: 'Raamatud' }, descriptions: { et: 'Rida\nrida' } }]),
      await t.run('quotes', [{ code: 'Q-TEXT', person: 'A1', language: 'et', text: 'Rida\nrida' }]),
    ];
    expect(others.map((run) => run.reported)).toEqual([[], [], [], []]);
  });
});

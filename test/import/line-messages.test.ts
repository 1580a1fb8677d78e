import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImportTestApp, loadReferences, type ImportTestApp } from './helpers.js';

// A refused line says what is wrong with which field in words an operator can act on, not in the
// schema library's terms ("Expected union value", or the regular expression of a code).

let t: ImportTestApp;
beforeAll(async () => {
  t = await createImportTestApp();
  await loadReferences(t);
});
afterAll(() => t.close());

function book(code: string, extra: Record<string, unknown> = {}) {
  return { code, type: 'BOOK', name: `Raamat ${code}`, stores: ['WEB'], shopPrice: 9.9, vatRate: 9, availability: 'AVAILABLE', ...extra };
}

describe('the message of a line the schema refuses', () => {
  it('names the field and the problem, and nothing is written', async () => {
    const before = await t.snapshot();
    const { name: _name, ...nameless } = book('M-3');
    const products = await t.run('products', [
      book('M-1 '),
      book('M-2', { type: 'CD' }),
      nameless,
      book('M-4', { stores: ['WEB', 'SHOP'] }),
      book('M-5', { shopPrice: '9.90' }),
      book('M-6', { shopPrice: -1 }),
      book('M-7', { colour: 'red' }),
      book('M-8', { name: '   ' }),
      book('x'.repeat(41)),
      book(''),
      book('M-11', { persons: [{ code: 'A1', role: 'AUTHOR', extra: 1 }] }),
      ['M-12'],
    ]);
    expect(products.reported).toEqual([
      'line 1: /code: must not begin or end with white space',
      'line 2: /type: must be one of BOOK, EBOOK, AUDIOBOOK, GIFT_CARD, VIRTUAL_GIFT_CARD, OFFICE_EQUIPMENT, TECH, MUSIC, MOVIE, GAME, USED_BOOK',
      'line 3: /name: is required',
      'line 4: /stores/1: must be one of WEB, WEB2',
      'line 5: /shopPrice: must be a number',
      'line 6: /shopPrice: must not be negative',
      'line 7: /colour: is not an accepted field',
      'line 8: /name: must not be blank',
      'line 9: /code: must be at most 40 characters long',
      'line 10: /code: must not be empty',
      'line 11: /persons/0/extra: is not an accepted field',
      'line 12: (line): must be an object',
    ]);
    expect(products.reported.join('\n')).not.toMatch(/Expected|\\u0000|\^\[/);
    expect(await t.snapshot()).toEqual(before);
  });

  it("says an email address that is not one is not one (a shop's, as a user's in the users import)", async () => {
    const before = await t.snapshot();
    const shops = await t.run('shops', [
      { code: 'SHOP-M', names: { et: 'Kauplus' }, city: 'Tallinn', webStock: false, email: 'pood.example.ee' },
    ]);
    expect(shops.reported).toEqual(['line 1: /email: is not an email address']);
    expect(await t.snapshot()).toEqual(before);
  });

  it("says a person's sort name must begin with a letter, the author index's letter, and imports the other lines", async () => {
    const persons = await t.run('persons', [
      { code: 'SN-1', name: 'Jaan Kross (1920-2007)', sortName: '(1920-2007), Jaan Kross' },
      { code: 'SN-2', name: 'Jaan Kross (1920-2007)', sortName: 'Kross, Jaan (1920-2007)' },
    ]);
    expect(persons.reported).toEqual([
      'line 1: /sortName: must begin with a letter, which the author index files the person under, not with "("',
    ]);
    expect(persons).toMatchObject({ lines: 2, outcomes: { created: 1 }, errors: 1 });
    const stored = await t.database.db.selectFrom('person').select(['code', 'sort_name']).where('code', 'like', 'SN-%').execute();
    expect(stored).toEqual([{ code: 'SN-2', sort_name: 'Kross, Jaan (1920-2007)' }]);
  });
});

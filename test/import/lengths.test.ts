import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { expectFieldErrors } from '../helpers/http.js';
import type { TestApp } from '../helpers/test-app.js';
import { putContent } from '../content/content-helpers.js';

// A string's length is counted in characters (code points) by the import as by the HTTP API:
// a character beyond the Basic Multilingual Plane (an emoji) is one, not the two UTF-16 units a
// JavaScript string holds it in. A banner's title goes through both doors with the same schema:
// the same value gets the same verdict. What is accepted is stored as given.

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

const EMOJI = '\u{1F4DA}'; // 📚, two UTF-16 units
const emoji = (count: number) => EMOJI.repeat(count);
const banner = (title: string) => ({ store: 'WEB', placement: 'HEADER', translations: { et: { title } } });

describe('a string of characters beyond the BMP, at and past its length', () => {
  it('gets the same verdict from the import as from the HTTP write of the same field', async () => {
    const [atLimit, pastLimit] = [emoji(200), emoji(201)];

    const put = await putContent(t, key, 'banners', 'BANNER-HTTP', banner(atLimit));
    expect(put.statusCode, put.body).toBe(200);
    const putPast = await putContent(t, key, 'banners', 'BANNER-HTTP-PAST', banner(pastLimit));
    expect(expectFieldErrors(putPast)).toEqual(['translations.et.title']);

    const imported = await importLines('banners', [
      { code: 'BANNER-IMPORT', ...banner(atLimit) },
      { code: 'BANNER-IMPORT-PAST', ...banner(pastLimit) },
    ]);
    expect(imported).toMatchObject({
      outcomes: { created: 1 },
      errors: [{ line: 2, message: '/translations/et/title: must be at most 200 characters long' }],
    });

    const stored = await t.database.db.selectFrom('banner').select(['code', 'translations']).orderBy('code').execute();
    expect(stored.map((row) => [row.code, JSON.parse(row.translations).et.title])).toEqual([
      ['BANNER-HTTP', atLimit],
      ['BANNER-IMPORT', atLimit],
    ]);
  });

  it('is counted alike by the catalogue kinds, and a name at its limit fits its column on either engine', async () => {
    const imported = await importLines('publishers', [
      { code: 'PUB-AT', name: emoji(200) },
      { code: 'PUB-PAST', name: emoji(201) },
      { code: 'PUB-MIXED', name: `${emoji(199)}ab` },
    ]);
    expect(imported).toMatchObject({
      outcomes: { created: 1 },
      errors: [
        { line: 2, message: '/name: must be at most 200 characters long' },
        { line: 3, message: '/name: must be at most 200 characters long' },
      ],
    });
    const stored = await t.database.db.selectFrom('publisher').select(['code', 'name']).execute();
    expect(stored).toEqual([{ code: 'PUB-AT', name: emoji(200) }]);
  });

  it('leaves a value nested deeper than any schema as it is: refused by its shape, not a stack overflow', async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/admin/import/publishers',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
      payload: `{"code":"PUB-DEEP","name":${deep}}`,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().errors).toEqual([{ line: 1, message: '/name: must be a string' }]);
  });

  it('is counted alike by the kinds that check lines with their own schema (users, sales history)', async () => {
    const user = (email: string, firstName: string) => ({ email, firstName, store: 'WEB', accountType: 'SIMPLE', activated: true });
    const users = await importLines('users', [user('at@example.ee', emoji(100)), user('past@example.ee', emoji(101))]);
    expect(users).toMatchObject({ outcomes: { created: 1 }, errors: [{ line: 2, message: expect.stringMatching(/^\/firstName: /) }] });
    expect(await t.database.db.selectFrom('app_user').select(['email', 'first_name']).execute()).toEqual([
      { email: 'at@example.ee', first_name: emoji(100) },
    ]);

    const sale = (order: string, city: string) => ({
      order,
      client: 'W1',
      clientType: 'PYSIKLIENT',
      sourceType: 'ONLINE',
      city,
      deliveryMethod: 'COURIER',
      products: ['P1'],
    });
    const sales = await importLines('sales-history', [sale('WT1', emoji(100)), sale('WT2', emoji(101))]);
    expect(sales).toMatchObject({ outcomes: { created: 1 }, errors: [{ line: 2, message: expect.stringMatching(/^\/city: /) }] });
  });
});

async function importLines(kind: string, lines: unknown[]) {
  const response = await t.app.inject({
    method: 'POST',
    url: `/admin/import/${kind}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: lines.map((line) => JSON.stringify(line)).join('\n'),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { outcomes: Record<string, number>; errors: Array<{ line: number; message: string }> };
}

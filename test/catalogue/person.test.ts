import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPerson, createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
const ids: Record<string, number> = {};
let businessAuth: Record<string, string>;

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  const person = (name: string, code: string) => createPerson(db, name, code);
  ids.tammsaare = await person('Tammsaare, Anton Hansen', 'TAMMSAARE');
  ids.kross = await person('Kross, Jaan', 'KROSS');
  ids.under = await person('Under, Marie', 'UNDER');
  ids.ounapuu = await person('Õunapuu, Õie', 'OUNAPUU');
  ids.percent = await person('100% Kirjanik', 'PERCENT');
  ids.underscore = await person('A_B Kirjastus-autor', 'UNDERSCORE');
  ids.abc = await person('Abc Autor', 'ABC');
  ids.translatorOnly = await person('Tõlkija, Mari', 'TRANSLATOR');
  ids.hiddenOnly = await person('Äri, Autor', 'BUSINESS-AUTHOR');
  ids.inactiveOnly = await person('Vana, Autor', 'OLD-AUTHOR');
  ids.outletOnly = await person('Outlet, Autor', 'OUTLET-AUTHOR');
  ids.nobody = await person('Raamatuta, Isik', 'NO-BOOKS');
  await db.updateTable('person').set({ image_url: 'https://img.example/tammsaare.jpg' }).where('id', '=', ids.tammsaare).execute();

  const author = (id: number) => ({ id, role: 'AUTHOR' as const });
  await createProduct(db, {
    code: 'TJO-1',
    name: 'Tõde ja õigus I',
    persons: [author(ids.tammsaare), { id: ids.translatorOnly, role: 'TRANSLATOR' }],
    releasedAt: Date.UTC(2020, 0, 1),
    price: 20,
  });
  await createProduct(db, {
    code: 'TJO-2',
    name: 'Tõde ja õigus II',
    persons: [author(ids.tammsaare)],
    releasedAt: Date.UTC(2021, 0, 1),
    price: 15,
  });
  await createProduct(db, {
    code: 'ILLUSTRATED',
    name: 'Pildiraamat',
    persons: [author(ids.kross), { id: ids.tammsaare, role: 'ILLUSTRATOR' }],
    releasedAt: Date.UTC(2022, 0, 1),
    price: 25,
  });
  await createProduct(db, { code: 'TAMMSAARE-B2B', persons: [author(ids.tammsaare)], hiddenWeb: true });
  await createProduct(db, { code: 'LUULE', persons: [author(ids.under)] });
  await createProduct(db, { code: 'OUN', persons: [author(ids.ounapuu)] });
  await createProduct(db, { code: 'PCT', persons: [author(ids.percent)] });
  await createProduct(db, { code: 'USC', persons: [author(ids.underscore)] });
  await createProduct(db, { code: 'ABC', persons: [author(ids.abc)] });
  await createProduct(db, { code: 'B2B', persons: [author(ids.hiddenOnly)], hiddenWeb: true });
  await createProduct(db, { code: 'GONE', persons: [author(ids.inactiveOnly)], active: false });
  await createProduct(db, { code: 'OUTLET', persons: [author(ids.outletOnly)], stores: ['WEB2'] });
  const business = await createCustomer(db, { kind: 'BUSINESS' });
  businessAuth = { authorization: `Bearer ${business.token}` };
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const codesOf = (body: Array<{ code: string }>) => body.map((item) => item.code);

async function authors(query = '', headers: Record<string, string> = {}) {
  const res = await get(`/author${query === '' ? '' : `?${query}`}`, headers);
  expect(res.statusCode, res.body).toBe(200);
  return { res, codes: codesOf(res.json()) };
}

describe('GET /author', () => {
  it('lists authors of visible products in the store by name, with paging headers', async () => {
    const { res, codes } = await authors();
    // Not the translator, nor authors of only hidden, inactive or other-store products.
    expect([...codes].sort()).toEqual(['ABC', 'KROSS', 'OUNAPUU', 'PERCENT', 'TAMMSAARE', 'UNDER', 'UNDERSCORE']);
    // Where punctuation and Õ go depends on the database's collation; plain names do not.
    expect(codes.filter((code) => ['KROSS', 'TAMMSAARE', 'UNDER'].includes(code))).toEqual(['KROSS', 'TAMMSAARE', 'UNDER']);
    expect(res.json().find((item: { code: string }) => item.code === 'TAMMSAARE')).toEqual({
      id: ids.tammsaare,
      code: 'TAMMSAARE',
      name: 'Tammsaare, Anton Hansen',
      sortName: 'Tammsaare, Anton Hansen',
      imageUrl: 'https://img.example/tammsaare.jpg',
    });
    expect(res.headers['x-pagination-total-count']).toBe('7');
    expect(res.headers['x-pagination-page-count']).toBe('1');
    expect(res.headers['x-pagination-per-page']).toBe('20');
    expect(res.headers.link).toContain('rel="last"');
  });

  it('pages, caps per-page at 100 and answers a page past the end with an empty array', async () => {
    const all = (await authors()).codes;
    const second = await authors('per-page=3&page=2');
    expect(second.codes).toEqual(all.slice(3, 6));
    expect((await authors('per-page=3&page=3')).codes).toEqual(all.slice(6));
    expect(second.res.headers['x-pagination-page-count']).toBe('3');
    expect(second.res.headers.link).toContain('</author?page=3&per-page=3>; rel="next"');
    expect((await authors('per-page=3&page=9')).codes).toEqual([]);
    expect((await authors('per-page=500')).res.headers['x-pagination-per-page']).toBe('100');
  });

  it('shows the authors of the business catalogue to business customers', async () => {
    const { res, codes } = await authors('', businessAuth);
    expect(codes).toContain('BUSINESS-AUTHOR');
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await authors('', { store: 'WEB2' })).codes).toEqual(['OUTLET-AUTHOR']);
  });

  it('filters by a case-insensitive name prefix, also for non-ASCII letters', async () => {
    expect((await authors('q=tamm')).codes).toEqual(['TAMMSAARE']);
    expect((await authors('q=KROSS,%20J')).codes).toEqual(['KROSS']);
    expect((await authors(`q=${encodeURIComponent('õunapuu')}`)).codes).toEqual(['OUNAPUU']);
    expect((await authors(`q=${encodeURIComponent('ÕUNA')}`)).codes).toEqual(['OUNAPUU']);
    expect((await authors('q=%20%20under%20')).codes).toEqual(['UNDER']);
    expect((await authors('q=nobody')).codes).toEqual([]);
    // Only a prefix: "Hansen" is inside a name.
    expect((await authors('q=Hansen')).codes).toEqual([]);
    // An empty q is no filter.
    expect((await authors('q=')).codes).toHaveLength(7);
  });

  it('treats LIKE wildcards in q as plain characters', async () => {
    expect((await authors('q=%25')).codes).toEqual([]);
    expect((await authors('q=100%25')).codes).toEqual(['PERCENT']);
    expect((await authors('q=A_')).codes).toEqual(['UNDERSCORE']);
    expect((await authors('q=_')).codes).toEqual([]);
    expect((await authors(`q=${encodeURIComponent('\\')}`)).codes).toEqual([]);
  });

  it('filters by first letter, case-insensitive', async () => {
    // By the sort name's letter: "Abc Autor" is filed as "Autor, Abc", "A_B Kirjastus-autor" under K.
    expect((await authors('letter=a')).codes.sort()).toEqual(['ABC']);
    expect((await authors('letter=k')).codes).toEqual(['PERCENT', 'UNDERSCORE', 'KROSS']);
    expect((await authors(`letter=${encodeURIComponent('õ')}`)).codes).toEqual(['OUNAPUU']);
    expect((await authors('letter=K&q=kr')).codes).toEqual(['KROSS']);
    expect((await authors('letter=T')).res.headers['x-pagination-total-count']).toBe('1');
  });

  it('is cacheable for guests (ETag, 304)', async () => {
    const first = await get('/author?letter=t');
    expect(first.headers['cache-control']).toBe('public, max-age=60');
    expect((await get('/author?letter=t', { 'if-none-match': String(first.headers.etag) })).statusCode).toBe(304);
  });

  it('refuses malformed parameters with a 400', async () => {
    for (const query of ['page=0', 'page=x', 'per-page=0', 'letter=ab', 'letter=', `q=${'x'.repeat(101)}`, 'q=a%00b', 'letter=%01']) {
      expectErrorBody(await get(`/author?${query}`), 400, 'Bad Request');
    }
    expectErrorBody(await get('/author', { authorization: 'Bearer nope' }), 401, 'Unauthorized');
  });
});

describe('GET /person/:id', () => {
  it('gives the person with their roles and the number of their products', async () => {
    const res = await get(`/person/${ids.tammsaare}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      id: ids.tammsaare,
      code: 'TAMMSAARE',
      name: 'Tammsaare, Anton Hansen',
      sortName: 'Tammsaare, Anton Hansen',
      imageUrl: 'https://img.example/tammsaare.jpg',
      description: 'About Tammsaare, Anton Hansen',
      roles: ['AUTHOR', 'ILLUSTRATOR'],
      productCount: 3,
    });
    expect(res.headers['cache-control']).toBe('public, max-age=60');
  });

  it('counts what the caller can see', async () => {
    expect((await get(`/person/${ids.tammsaare}`, businessAuth)).json().productCount).toBe(4);
    expect((await get(`/person/${ids.hiddenOnly}`, businessAuth)).json()).toMatchObject({ roles: ['AUTHOR'], productCount: 1 });
    expect((await get(`/person/${ids.translatorOnly}`)).json()).toMatchObject({ roles: ['TRANSLATOR'], productCount: 1 });
  });

  it('shows a person without products in the store, with no roles and a count of 0', async () => {
    for (const id of [ids.nobody, ids.hiddenOnly, ids.inactiveOnly, ids.outletOnly]) {
      const res = await get(`/person/${id}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ id, roles: [], productCount: 0 });
    }
    expect((await get(`/person/${ids.outletOnly}`, { store: 'WEB2' })).json()).toMatchObject({ roles: ['AUTHOR'], productCount: 1 });
  });

  it('is a 404 for an unknown person and a 400 for a malformed id', async () => {
    const body = expectErrorBody(await get('/person/987654'), 404, 'Not Found');
    expect(body.message).toContain('987654');
    for (const bad of ['abc', '0', '-1', '1.5', '99999999999999999999']) {
      expectErrorBody(await get(`/person/${bad}`), 400, 'Bad Request');
    }
  });
});

describe('GET /person/:id/products', () => {
  it("lists the person's visible products in any role, newest first", async () => {
    const res = await get(`/person/${ids.tammsaare}/products`);
    expect(res.statusCode, res.body).toBe(200);
    expect(codesOf(res.json())).toEqual(['ILLUSTRATED', 'TJO-2', 'TJO-1']);
    expect(res.headers['x-pagination-total-count']).toBe('3');
    expect(res.json()[1].authors).toEqual([{ id: ids.tammsaare, code: 'TAMMSAARE', name: 'Tammsaare, Anton Hansen' }]);
  });

  it('filters by role, sorts and pages', async () => {
    expect(codesOf((await get(`/person/${ids.tammsaare}/products?role=AUTHOR`)).json())).toEqual(['TJO-2', 'TJO-1']);
    expect(codesOf((await get(`/person/${ids.tammsaare}/products?role=ILLUSTRATOR`)).json())).toEqual(['ILLUSTRATED']);
    expect(codesOf((await get(`/person/${ids.tammsaare}/products?role=READER`)).json())).toEqual([]);
    expect(codesOf((await get(`/person/${ids.tammsaare}/products?sort=price`)).json())).toEqual(['TJO-2', 'TJO-1', 'ILLUSTRATED']);
    expect(codesOf((await get(`/person/${ids.tammsaare}/products?sort=name`)).json())).toEqual(['ILLUSTRATED', 'TJO-1', 'TJO-2']);
    const page = await get(`/person/${ids.tammsaare}/products?per-page=1&page=3`);
    expect(codesOf(page.json())).toEqual(['TJO-1']);
    expect(page.headers['x-pagination-page-count']).toBe('3');
  });

  it('shows the business catalogue to business customers', async () => {
    const res = await get(`/person/${ids.tammsaare}/products?role=AUTHOR`, businessAuth);
    expect(codesOf(res.json())).toContain('TAMMSAARE-B2B');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is a 404 for an unknown person and a 400 for bad parameters', async () => {
    expectErrorBody(await get('/person/987654/products'), 404, 'Not Found');
    expect((await get(`/person/${ids.nobody}/products`)).json()).toEqual([]);
    for (const query of ['role=WRITER', 'role=author', 'sort=random', 'page=0', 'per-page=-1']) {
      expectErrorBody(await get(`/person/${ids.tammsaare}/products?${query}`), 400, 'Bad Request');
    }
  });
});

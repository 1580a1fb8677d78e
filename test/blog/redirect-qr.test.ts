import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QR_OPTIONS } from '../../src/modules/blog/qr-code.routes.js';
import { createProduct, createShop } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, operatorKey } from './helpers.js';

let t: TestApp;
let key = '';
let product = 0;

beforeAll(async () => {
  t = await createTestApp();
  key = await operatorKey(t);
  product = await createProduct(t.database.db, { code: 'BOOK-1' });
  await createShop(t.database.db, { code: 'VIRU', name: 'Viru' });
  const res = await importContent(t, 'redirects', [
    { code: 'OLD-BOOK', store: 'WEB', path: 'https://old.example/Raamat.php?id=5#top', target: '/product/1', status: 301 },
    { code: 'SALE', store: 'WEB', path: '/soodus/', target: 'https://campaign.example/sale', status: 302 },
    { code: 'OFF', store: 'WEB', path: '/vana', target: '/uus', active: false },
  ]);
  expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
  await importContent(t, 'blog-posts', [
    { code: 'POST', store: 'WEB', language: 'et', slug: 'postitus', title: 'P', body: 'x', publishedAt: '2026-01-01' },
    { code: 'DRAFT', store: 'WEB', language: 'et', slug: 'mustand', title: 'D', body: 'x', publishedAt: '2026-01-01', active: false },
  ]);
  const pages = await importContent(t, 'content-pages', [
    { code: 'ABOUT', store: 'WEB', slug: 'meist', translations: { et: { title: 'Meist', body: '<p>x</p>' } } },
    { code: 'HIDDEN', store: 'WEB', slug: 'peidus', active: false, translations: { et: { title: 'Peidus', body: '<p>x</p>' } } },
  ]);
  expect(pages.json(), pages.body).toMatchObject({ errorCount: 0 });
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });
const hits = async (code: string) =>
  (await get(`/admin/content/redirects/${code}`, { authorization: `Bearer ${key}` })).json() as { hits: number; lastHitAt: string | null };

describe('GET /external-url', () => {
  it('finds an old URL in any of its spellings, with the status and the full target URL', async () => {
    const res = await get(`/external-url?path=${encodeURIComponent('/Raamat.php?id=5')}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ path: '/Raamat.php?id=5', target: '/product/1', url: 'http://localhost:5173/product/1', status: 301 });
    expect(res.headers['cache-control']).toBe('no-store');
    expect((await get('/external-url?path=/soodus')).json()).toMatchObject({ status: 302, url: 'https://campaign.example/sale' });
    expect((await get(`/external-url?path=${encodeURIComponent('https://x.example/soodus/#a')}`)).statusCode).toBe(200);
  });

  // An old path outside ASCII is typed raw in a list of old URLs (`/raamatud/õpik`), but a browser's
  // location gives it percent-encoded, and a full URL is stored so (the URL parser encodes it): each
  // spelling must find the redirect the other was imported as.
  it('finds an old path outside ASCII written raw or percent-encoded, whichever it was imported as', async () => {
    const res = await importContent(t, 'redirects', [
      { code: 'RAW', store: 'WEB', path: '/raamatud/õpik?sari=Ööbik', target: '/category/1' },
      { code: 'FULL', store: 'WEB', path: 'https://old.example/книги/новые', target: '/category/2' },
    ]);
    expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
    for (const spelling of [
      '/raamatud/õpik?sari=Ööbik',
      '/raamatud/%C3%B5pik?sari=%C3%96%C3%B6bik',
      '/raamatud/%c3%b5pik?sari=%c3%96%c3%b6bik',
    ]) {
      const found = await get(`/external-url?path=${encodeURIComponent(spelling)}`);
      expect(found.statusCode, `${spelling}: ${found.body}`).toBe(200);
      expect(found.json()).toMatchObject({ target: '/category/1' });
    }
    for (const spelling of [
      '/книги/новые',
      `/${encodeURIComponent('книги')}/${encodeURIComponent('новые')}`,
      'https://shop.example/книги/новые/',
    ]) {
      const found = await get(`/external-url?path=${encodeURIComponent(spelling)}`);
      expect(found.statusCode, `${spelling}: ${found.body}`).toBe(200);
      expect(found.json()).toMatchObject({ target: '/category/2' });
    }
    // An escape of an ASCII character stays what it is: `%2F` is not a `/` of the path.
    expectErrorBody(await get(`/external-url?path=${encodeURIComponent('/raamatud%2F%C3%B5pik?sari=Ööbik')}`), 404, 'Not Found');
  });

  it('is a 404 for an unknown, inactive or other-store path, a 400 for a non-path', async () => {
    expectErrorBody(await get('/external-url?path=/nope'), 404, 'Not Found');
    expectErrorBody(await get('/external-url?path=/vana'), 404, 'Not Found');
    expectErrorBody(await get('/external-url?path=/soodus', { store: 'WEB2' }), 404, 'Not Found');
    expectErrorBody(await get('/external-url?path=nopath'), 400, 'Bad Request');
    expectErrorBody(await get('/external-url'), 400, 'Bad Request');
  });

  // From as many addresses: one address's repeats are counted up to caps (anonymous-repeats.test.ts).
  it('counts every hit exactly (batched, written before the admin reads)', async () => {
    const before = (await hits('SALE')).hits;
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        t.app.inject({ method: 'GET', url: '/external-url?path=/soodus', remoteAddress: `10.25.0.${i + 1}` }),
      ),
    );
    const after = await hits('SALE');
    expect(after.hits).toBe(before + 25);
    expect(after.lastHitAt).not.toBeNull();
    expect((await hits('OFF')).hits).toBe(0);
    expectErrorBody(await get('/admin/content/redirects/SALE'), 401, 'Unauthorized');
  });

  it('counts no hit for a HEAD: a link checker asks whether the answer is there, nobody followed the old URL', async () => {
    const before = (await hits('SALE')).hits;
    const head = await t.app.inject({ method: 'HEAD', url: '/external-url?path=/soodus' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['cache-control']).toBe('no-store');
    expect((await hits('SALE')).hits).toBe(before);
    expect((await t.app.inject({ method: 'GET', url: '/external-url?path=/soodus', remoteAddress: '10.25.1.1' })).statusCode).toBe(200);
    expect((await hits('SALE')).hits).toBe(before + 1);
  });
});

describe('GET /qr-code/:code', () => {
  const expected = (url: string) => QRCode.toString(url, QR_OPTIONS);

  it('draws the front-end URL of a product, shop, post, content page and redirect', async () => {
    const cases: Array<[string, string]> = [
      ['product-BOOK-1', `http://localhost:5173/product/${product}`],
      ['shop-VIRU', 'http://localhost:5173/shop/VIRU'],
      ['blog-POST', 'http://localhost:5173/blog/postitus'],
      ['page-ABOUT', 'http://localhost:5173/content-page/meist'],
      ['redirect-SALE', 'http://localhost:5173/soodus'],
    ];
    const bodies = new Set<string>();
    for (const [code, url] of cases) {
      const res = await get(`/qr-code/${code}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(res.body).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
      expect(res.body).toBe(await expected(url));
      bodies.add(res.body);
    }
    expect(bodies.size).toBe(cases.length);
  });

  it('uses the store front-end URL and caches for guests', async () => {
    const res = await get('/qr-code/shop-VIRU', { store: 'WEB2' });
    expect(res.body).toBe(await expected('http://localhost:5174/shop/VIRU'));
    expect(res.headers['cache-control']).toBe('public, max-age=600');
    expect((await get('/qr-code/shop-VIRU', { store: 'WEB2', 'if-none-match': String(res.headers.etag) })).statusCode).toBe(304);
  });

  it('is a 404 for an unknown kind, code or unpublished target', async () => {
    for (const code of ['product-NOPE', 'shop-NOPE', 'blog-DRAFT', 'redirect-OFF', 'page-x', 'page-HIDDEN', 'nokind', 'x-1']) {
      expectErrorBody(await get(`/qr-code/${code}`), 404, 'Not Found');
    }
    expectErrorBody(await get('/qr-code/a'), 400, 'Bad Request');
  });

  it("is a 404 for a product the store does not sell, as its product page is (the catalogue's rule)", async () => {
    // BOOK-1 is in WEB's assortment only: WEB2's front-end has no page for it.
    expect((await get('/qr-code/product-BOOK-1')).statusCode).toBe(200);
    expectErrorBody(await get(`/product/${product}`, { store: 'WEB2' }), 404, 'Not Found');
    expectErrorBody(await get('/qr-code/product-BOOK-1', { store: 'WEB2' }), 404, 'Not Found');
    await createProduct(t.database.db, { code: 'BOOK-HIDDEN', hiddenWeb: true });
    await createProduct(t.database.db, { code: 'BOOK-NOWHERE', stores: [] });
    for (const code of ['product-BOOK-HIDDEN', 'product-BOOK-NOWHERE']) expectErrorBody(await get(`/qr-code/${code}`), 404, 'Not Found');
  });
});

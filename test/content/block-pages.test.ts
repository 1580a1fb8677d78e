import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createCampaign, createCategory, createProduct } from '../helpers/catalogue.js';
import { createCustomer, type TestCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { DAY, deleteContent, importContent, iso, putContent, read } from './content-helpers.js';

let t: TestApp;
let key: string;
let business: TestCustomer;
let retail: TestCustomer;
const ids = {} as Record<'fiction' | 'poetry' | 'hidden' | 'a' | 'b' | 'hiddenWeb' | 'businessOnly' | 'spring', number>;

const title = (et: string) => ({ et: { title: et } });
const rich = (body: string) => ({ type: 'RICH_TEXT', translations: { et: { title: 'Tekst', body }, en: { title: 'Text', body } } });

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  key = await createApiKey(db, 'back-office', Date.now());
  business = await createCustomer(db, { kind: 'BUSINESS' });
  retail = await createCustomer(db, { kind: 'SIMPLE', discountPercent: 10 });
  ids.fiction = await createCategory(db, { et: 'Ilukirjandus', en: 'Fiction' }, { code: 'FICTION' });
  ids.poetry = await createCategory(db, { et: 'Luule' }, { code: 'POETRY', parentId: ids.fiction });
  ids.hidden = await createCategory(db, { et: 'Peidus' }, { code: 'HIDDEN', active: false });
  ids.a = await createProduct(db, { code: 'A', name: 'Aabits', price: 20, categoryIds: [ids.poetry], salesCount: 5 });
  ids.b = await createProduct(db, { code: 'B', name: 'Bemba', price: 10, originalPrice: 20, categoryIds: [ids.fiction] });
  ids.hiddenWeb = await createProduct(db, { code: 'HW', hiddenWeb: true });
  ids.businessOnly = await createProduct(db, { code: 'BO', hiddenWeb: true, hiddenBusiness: false });
  ids.spring = await createCampaign(db, {
    code: 'SPRING',
    names: { et: 'Kevad', en: 'Spring' },
    prices: [
      { productId: ids.a, price: 12 },
      { productId: ids.b, price: 8 },
    ],
  });
  await createCampaign(db, { code: 'OVER', validTo: Date.now() - DAY, prices: [{ productId: ids.a, price: 1 }] });

  const now = Date.now();
  const banners = await importContent(t, key, 'banners', [
    { code: 'H2', store: 'WEB', placement: 'HEADER', position: 2, translations: { et: { title: 'Teine' }, en: { title: 'Second' } } },
    {
      code: 'H1',
      store: 'WEB',
      placement: 'HEADER',
      position: 1,
      linkUrl: '/sale',
      imageUrl: 'https://img.example/h1.png',
      translations: { et: { title: 'Esimene', body: '<b onclick="x()">Soodus</b>' } },
    },
    {
      code: 'HB',
      store: 'WEB',
      placement: 'HEADER',
      position: 3,
      customerKinds: ['BUSINESS', 'WHOLESALE'],
      translations: title('Ärikliendile'),
    },
    { code: 'HOFF', store: 'WEB', placement: 'HEADER', active: false, translations: title('Mustand') },
    { code: 'HNEXT', store: 'WEB', placement: 'HEADER', visibleFrom: iso(now + DAY), translations: title('Homme') },
    { code: 'HWEB2', store: 'WEB2', placement: 'HEADER', translations: title('Outlet') },
    { code: 'HOME1', store: 'WEB', placement: 'HOME', translations: title('Avalehe bänner') },
    { code: 'M1', store: 'WEB', placement: 'MENU', translations: title('Menüü bänner') },
  ]);
  expect(banners.json(), banners.body).toMatchObject({ outcomes: { created: 8 }, errorCount: 0 });

  const pages = await importContent(t, key, 'composite-pages', [
    {
      code: 'HOME',
      store: 'WEB',
      kind: 'MAIN',
      translations: { et: { title: 'Avaleht' }, en: { title: 'Home' } },
      blocks: [
        rich('<p>Tere</p><script>alert(1)</script>'),
        { type: 'PRODUCT_LIST', products: ['B', 'HW', 'NOPE', 'A'], translations: title('Valik') },
        { type: 'BANNER', placement: 'HOME' },
        { type: 'CAMPAIGN_LIST', campaigns: ['SPRING', 'OVER', 'MISSING'] },
        { type: 'PRODUCT_COMPONENT', component: 'top', limit: 5 },
        { type: 'PRODUCT_COMPONENT', component: 'discounted', category: 'FICTION' },
        { type: 'IMAGE', imageUrl: 'https://img.example/x.png', linkUrl: '/x', translations: { et: { alt: 'Pilt' } } },
        { type: 'LINKS', links: [{ url: '/a', labels: { et: 'A-le', en: 'To A' } }] },
        { ...rich('<p>mustand</p>'), active: false },
        { ...rich('<p>homme</p>'), visibleFrom: iso(now + DAY) },
      ],
    },
    { code: 'HOME-NEXT', store: 'WEB', kind: 'MAIN', visibleFrom: iso(now + DAY), translations: title('Homne avaleht'), blocks: [] },
    { code: 'GIFTS', store: 'WEB', slug: 'gifts', translations: title('Kingid'), blocks: [rich('<p>Kingiideed</p>')] },
    { code: 'FICTION-PAGE', store: 'WEB', kind: 'CATEGORY', category: 'FICTION', translations: title('Ilukirjandus'), blocks: [] },
    { code: 'SPRING-PAGE', store: 'WEB', kind: 'DISCOUNT', slug: 'spring', campaign: 'SPRING', translations: title('Kevad'), blocks: [] },
    { code: 'OVER-PAGE', store: 'WEB', kind: 'DISCOUNT', slug: 'over', campaign: 'OVER', translations: title('Läbi'), blocks: [] },
    { code: 'BAD1', store: 'WEB', kind: 'CATEGORY', category: 'NOPE', translations: title('x'), blocks: [] },
    { code: 'BAD2', store: 'WEB', kind: 'DISCOUNT', slug: 'x', translations: title('x'), blocks: [] },
    { code: 'BAD3', store: 'WEB', translations: title('x'), blocks: [] },
    { code: 'BAD4', store: 'WEB', slug: 'bad4', translations: title('x'), blocks: [{ type: 'PRODUCT_LIST' }] },
    { code: 'BAD5', store: 'WEB', slug: 'bad5', translations: title('x'), blocks: [{ type: 'IMAGE', imageUrl: 'javascript:alert(1)' }] },
    {
      code: 'BAD6',
      store: 'WEB',
      slug: 'bad6',
      translations: title('x'),
      blocks: [{ type: 'LINKS', links: [{ url: 'javascript:alert(1)', labels: { et: 'x' } }] }],
    },
  ]);
  expect(pages.statusCode, pages.body).toBe(200);
  expect(pages.json().outcomes).toEqual({ created: 6 });
  expect(pages.json().errors.map((error: { line: number }) => error.line)).toEqual([7, 8, 9, 10, 11, 12]);

  const menus = await importContent(t, key, 'menus', [
    {
      code: 'MENU',
      store: 'WEB',
      links: [
        { url: '/uued', labels: { et: 'Uued', en: 'New' } },
        { url: '/luule-top', category: 'POETRY', labels: { et: 'Luule top' } },
        { url: '/peidus', category: 'HIDDEN', labels: { et: 'Peidus' } },
      ],
    },
    { code: 'MENU-DRAFT', store: 'WEB', active: false, visibleFrom: iso(now), links: [{ url: '/mustand', labels: { et: 'Mustand' } }] },
  ]);
  expect(menus.json(), menus.body).toMatchObject({ outcomes: { created: 2 }, errorCount: 0 });
});
afterAll(() => t.close());

const auth = (customer: TestCustomer) => ({ authorization: `Bearer ${customer.token}` });

describe('GET /main-page', () => {
  it('answers the current main page with its shown blocks in order, product blocks resolved for a guest', async () => {
    const res = await read(t, '/main-page');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=600');
    const page = res.json();
    expect(page).toMatchObject({ code: 'HOME', kind: 'MAIN', title: 'Avaleht', language: 'et' });
    expect(page.blocks.map((block: { type: string }) => block.type)).toEqual([
      'RICH_TEXT',
      'PRODUCT_LIST',
      'BANNER',
      'CAMPAIGN_LIST',
      'PRODUCT_COMPONENT',
      'PRODUCT_COMPONENT',
      'IMAGE',
      'LINKS',
    ]);
    const [text, list, banner, campaigns, top, discounted, image, links] = page.blocks;
    expect(text).toMatchObject({ title: 'Tekst', body: '<p>Tere</p>' });
    // Hidden and unknown products are left out; the order is the block's.
    expect(list.products.map((card: { code: string }) => card.code)).toEqual(['B', 'A']);
    // The campaign prices the catalogue applies.
    expect(list.products.map((card: { price: number }) => card.price)).toEqual([8, 12]);
    expect(banner.banners.map((b: { code: string }) => b.code)).toEqual(['HOME1']);
    expect(campaigns.campaigns).toEqual([expect.objectContaining({ code: 'SPRING', name: 'Kevad' })]);
    expect(top).toMatchObject({ component: 'top' });
    expect(top.products.map((card: { code: string }) => card.code)).toEqual(['A']);
    // The discount the cards show: A's running campaign price (12 for 20) is one too.
    expect(discounted.products.map((card: { code: string }) => card.code)).toEqual(['A', 'B']);
    expect(image).toMatchObject({ imageUrl: 'https://img.example/x.png', linkUrl: '/x', alt: 'Pilt' });
    expect(links.links).toEqual([{ url: '/a', label: 'A-le' }]);
  });

  it('prices product blocks for the caller: retail with their discount and cacheable by their browser alone, business never cached', async () => {
    const guest = (await read(t, '/main-page')).json().blocks[1].products;
    const asRetail = await read(t, '/main-page', auth(retail));
    // Their own prices: a shared cache that ignored Vary: Authorization would show them to everybody.
    expect(asRetail.headers['cache-control']).toBe('private, max-age=600');
    const asBusiness = await read(t, '/main-page', auth(business));
    expect(asBusiness.statusCode, asBusiness.body).toBe(200);
    expect(asBusiness.headers['cache-control']).toBe('no-store');
    const catalogue = await read(t, `/product/${ids.a}`, auth(business));
    const businessA = asBusiness.json().blocks[1].products.find((card: { code: string }) => card.code === 'A');
    expect(businessA.price).toBe(catalogue.json().price);
    const catalogueRetail = await read(t, `/product/${ids.b}`, auth(retail));
    expect(asRetail.json().blocks[1].products[0].price).toBe(catalogueRetail.json().price);
    expect(guest[0].code).toBe('B');
  });

  it('answers the same ETag with a 304, and translates blocks and links', async () => {
    const first = await read(t, '/main-page', { 'x-app-language': 'en' });
    expect(first.json()).toMatchObject({ title: 'Home', language: 'en' });
    expect(first.json().blocks[7].links).toEqual([{ url: '/a', label: 'To A' }]);
    expect((await read(t, '/main-page', { 'x-app-language': 'en', 'if-none-match': first.headers.etag as string })).statusCode).toBe(304);
  });

  it('shows drafts and future blocks in preview; the store without a main page is a 404', async () => {
    const preview = await read(t, '/main-page?preview=1', { authorization: `Bearer ${key}` });
    // The future main page starts later than the current one: preview shows it.
    expect(preview.json().code).toBe('HOME-NEXT');
    expectErrorBody(await read(t, '/main-page', { store: 'WEB2' }), 404, 'Not Found');
  });
});

describe('GET /composite-page, /category-page, /discount-page', () => {
  it('answers a composite page by slug and a category landing page by category id', async () => {
    const gifts = await read(t, '/composite-page/gifts');
    expect(gifts.json()).toMatchObject({
      code: 'GIFTS',
      kind: 'COMPOSITE',
      slug: 'gifts',
      blocks: [{ type: 'RICH_TEXT', body: '<p>Kingiideed</p>' }],
    });
    const category = await read(t, `/category-page/${ids.fiction}`);
    expect(category.json()).toMatchObject({ code: 'FICTION-PAGE', kind: 'CATEGORY', categoryId: ids.fiction });
    expectErrorBody(await read(t, `/category-page/${ids.poetry}`), 404, 'Not Found');
    expectErrorBody(await read(t, '/category-page/abc'), 400, 'Bad Request');
    expectErrorBody(await read(t, '/composite-page/spring'), 404, 'Not Found');
    // Past the slug's 200 characters the schema refuses it; past the router's 400 the URL is too long.
    expectErrorBody(await read(t, `/composite-page/${'x'.repeat(300)}`), 400, 'Bad Request');
    expectErrorBody(await read(t, `/composite-page/${'x'.repeat(500)}`), 414, 'URI Too Long');
    expectErrorBody(await read(t, '/composite-page/%00'), 400, 'Bad Request');
  });

  it("answers a discount page with its running campaign and a page of the campaign's products", async () => {
    const res = await read(t, '/discount-page/spring?per-page=1');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ code: 'SPRING-PAGE', kind: 'DISCOUNT', campaign: { code: 'SPRING', name: 'Kevad' } });
    expect(res.json().products).toHaveLength(1);
    expect(res.headers['x-pagination-total-count']).toBe('2');
    const over = await read(t, '/discount-page/over');
    expect(over.json()).toMatchObject({ campaign: null, products: [] });
  });
});

describe('GET /header-banner', () => {
  it('lists the banners shown now for the store, language and customer kind, in order', async () => {
    const guest = await read(t, '/header-banner');
    expect(guest.statusCode, guest.body).toBe(200);
    expect(guest.json()).toEqual([
      {
        id: expect.any(Number),
        code: 'H1',
        placement: 'HEADER',
        position: 1,
        language: 'et',
        title: 'Esimene',
        body: '<b>Soodus</b>',
        imageUrl: 'https://img.example/h1.png',
        linkUrl: '/sale',
      },
      expect.objectContaining({ code: 'H2', title: 'Teine' }),
    ]);
    const en = await read(t, '/header-banner', { 'x-app-language': 'en' });
    expect(en.json().map((banner: { title: string }) => banner.title)).toEqual(['Esimene', 'Second']);
    const asBusiness = await read(t, '/header-banner', auth(business));
    expect(asBusiness.json().map((banner: { code: string }) => banner.code)).toEqual(['H1', 'H2', 'HB']);
    expect((await read(t, '/header-banner', { store: 'WEB2' })).json().map((banner: { code: string }) => banner.code)).toEqual(['HWEB2']);
    const preview = await read(t, '/header-banner?preview=1', { authorization: `Bearer ${key}` });
    expect(preview.json().map((banner: { code: string }) => banner.code)).toEqual(['HOFF', 'HNEXT', 'H1', 'H2']);
  });
});

describe('GET /mega-menu', () => {
  it('answers the category tree with featured links on their categories, the other links, and the menu banners', async () => {
    const res = await read(t, '/mega-menu');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      categories: [
        {
          id: ids.fiction,
          code: 'FICTION',
          name: 'Ilukirjandus',
          links: [],
          children: [
            {
              id: ids.poetry,
              code: 'POETRY',
              name: 'Luule',
              links: [{ url: '/luule-top', label: 'Luule top', categoryId: ids.poetry }],
              children: [],
            },
          ],
        },
      ],
      links: [
        { url: '/uued', label: 'Uued', categoryId: null },
        { url: '/peidus', label: 'Peidus', categoryId: null },
      ],
      banners: [expect.objectContaining({ code: 'M1' })],
    });
    const preview = await read(t, '/mega-menu?preview=1', { authorization: `Bearer ${key}` });
    expect(preview.json().links).toEqual([{ url: '/mustand', label: 'Mustand', categoryId: null }]);
  });
});

describe('operator edits of block pages, banners and menus', () => {
  it('imports again without changes, and PUT/DELETE single items', async () => {
    const again = await importContent(t, key, 'banners', [
      { code: 'H2', store: 'WEB', placement: 'HEADER', position: 2, translations: { et: { title: 'Teine' }, en: { title: 'Second' } } },
    ]);
    expect(again.json().outcomes).toEqual({ unchanged: 1 });
    const put = await putContent(t, key, 'composite-pages', 'GIFTS', {
      store: 'WEB',
      slug: 'gifts',
      translations: title('Kingid'),
      blocks: [{ type: 'RICH_TEXT', translations: { et: { body: '<a href="javascript:alert(1)" onmouseover="x">k</a>' } } }],
    });
    expect(put.json()).toEqual({ code: 'GIFTS', outcome: 'updated' });
    expect((await read(t, '/composite-page/gifts')).json().blocks[0].body).toBe('<a>k</a>');
    const badBlock = await putContent(t, key, 'composite-pages', 'GIFTS', {
      store: 'WEB',
      slug: 'gifts',
      translations: title('K'),
      blocks: [{ type: 'BANNER' }],
    });
    expect(badBlock.statusCode).toBe(422);
    // Without x-app-language, in the configured default language (Estonian).
    expect(badBlock.json()).toEqual([{ field: 'blocks.0.placement', message: 'on BANNER-tüüpi plokil kohustuslik' }]);
    expect((await deleteContent(t, key, 'composite-pages', 'GIFTS')).statusCode).toBe(204);
    expectErrorBody(await read(t, '/composite-page/gifts'), 404, 'Not Found');
    expect((await deleteContent(t, key, 'banners', 'H2')).statusCode).toBe(204);
    expect((await read(t, '/header-banner')).json().map((banner: { code: string }) => banner.code)).toEqual(['H1']);
    const menu = await putContent(t, key, 'menus', 'MENU', { store: 'WEB', links: [] });
    expect(menu.json().outcome).toBe('updated');
    expect((await read(t, '/mega-menu')).json().links).toEqual([]);
    expectErrorBody(await deleteContent(t, key, 'menus', 'NOPE'), 404, 'Not Found');
  });
});

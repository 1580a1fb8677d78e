import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/infra/clock.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import { createCampaign, createProduct } from '../helpers/catalogue.js';
import type { TestApp } from '../helpers/test-app.js';
import { importContent, iso, read } from './content-helpers.js';

// A content answer may be kept for ten minutes, but not past the moment it changes: a banner,
// block or page whose window starts or ends, a campaign that starts or ends, a campaign price of a
// product it shows. Its max-age ends there, so a campaign that ends at midnight is not shown,
// nor its prices, by a browser or CDN until ten past.

const NOW = Math.floor(Date.now() / 1000) * 1000;
const SECOND = 1000;
const title = (et: string) => ({ et: { title: et } });

let t: TestApp;
let key: string;

beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp({ clock: fixedClock(NOW) }));
  const db = t.database.db;
  const book = await createProduct(db, { code: 'ON-SALE', price: 20 });
  await createProduct(db, { code: 'PLAIN', price: 10 });
  const later = await createProduct(db, { code: 'LATER-BOOK', price: 10 });
  await createCampaign(db, {
    code: 'FLASH',
    validFrom: NOW - 3600 * SECOND,
    validTo: NOW + 400 * SECOND,
    prices: [{ productId: book, price: 15 }],
  });
  await createCampaign(db, {
    code: 'WEEKEND',
    validFrom: NOW - 3600 * SECOND,
    validTo: NOW + 250 * SECOND,
    prices: [{ productId: book, price: 16 }],
  });
  await createCampaign(db, { code: 'LATER', validFrom: NOW + 150 * SECOND, prices: [{ productId: later, price: 9 }] });
  const banners = await importContent(t, key, 'banners', [
    { code: 'ENDS', store: 'WEB', placement: 'HEADER', visibleTo: iso(NOW + 300 * SECOND), translations: title('Lõpeb') },
    // Another kind's banner changes nothing a guest sees.
    {
      code: 'FOR-B',
      store: 'WEB',
      placement: 'HEADER',
      customerKinds: ['BUSINESS'],
      visibleTo: iso(NOW + 100 * SECOND),
      translations: title('Äri'),
    },
    { code: 'SOON', store: 'WEB', placement: 'MENU', visibleFrom: iso(NOW + 200 * SECOND), translations: title('Varsti') },
  ]);
  expect(banners.json(), banners.body).toMatchObject({ errorCount: 0 });
  const pages = await importContent(t, key, 'composite-pages', [
    { code: 'HOME', store: 'WEB', kind: 'MAIN', translations: title('Avaleht'), blocks: [{ type: 'PRODUCT_LIST', products: ['ON-SALE'] }] },
    { code: 'PLAIN', store: 'WEB', slug: 'plain', translations: title('Lihtne'), blocks: [{ type: 'PRODUCT_LIST', products: ['PLAIN'] }] },
    {
      code: 'BLOCKS',
      store: 'WEB',
      slug: 'blocks',
      translations: title('Plokid'),
      blocks: [{ type: 'RICH_TEXT', visibleTo: iso(NOW + 90 * SECOND), translations: { et: { body: '<p>Täna</p>' } } }],
    },
    {
      code: 'WEEKEND-PAGE',
      store: 'WEB',
      kind: 'DISCOUNT',
      slug: 'weekend',
      campaign: 'WEEKEND',
      translations: title('Nädalavahetus'),
      blocks: [],
    },
    { code: 'LATER-PAGE', store: 'WEB', kind: 'DISCOUNT', slug: 'later', campaign: 'LATER', translations: title('Hiljem'), blocks: [] },
  ]);
  expect(pages.json(), pages.body).toMatchObject({ errorCount: 0 });
  const contentPages = await importContent(t, key, 'content-pages', [
    {
      code: 'OFFER',
      store: 'WEB',
      slug: 'offer',
      visibleTo: iso(NOW + 45 * SECOND),
      translations: { et: { title: 'Pakkumine', body: '<p>x</p>' } },
    },
  ]);
  expect(contentPages.json(), contentPages.body).toMatchObject({ errorCount: 0 });
});
afterAll(() => t.close());

const cacheControl = async (url: string, headers: Record<string, string> = {}) => {
  const res = await read(t, url, headers);
  expect(res.statusCode, res.body).toBe(200);
  return res.headers['cache-control'];
};

describe('how long a content answer may be kept', () => {
  it('is ten minutes when nothing on it starts or ends sooner', async () => {
    expect(await cacheControl('/composite-page/plain')).toBe('public, max-age=600');
  });

  it("ends when a banner's window ends, or a banner's window starts", async () => {
    expect(await cacheControl('/header-banner')).toBe('public, max-age=300');
    expect(await cacheControl('/mega-menu')).toBe('public, max-age=200');
  });

  it("ends when a page's or a block's window ends", async () => {
    expect(await cacheControl('/content-page/offer')).toBe('public, max-age=45');
    expect(await cacheControl('/composite-page/blocks')).toBe('public, max-age=90');
  });

  it('ends when a campaign price of a product on the page starts or ends', async () => {
    expect(await cacheControl('/main-page')).toBe('public, max-age=250');
  });

  it("ends when the discount page's campaign ends or starts", async () => {
    expect(await cacheControl('/discount-page/weekend')).toBe('public, max-age=250');
    // Not running yet: no products, until it starts.
    const later = await read(t, '/discount-page/later');
    expect(later.json().products).toEqual([]);
    expect(later.headers['cache-control']).toBe('public, max-age=150');
  });
});

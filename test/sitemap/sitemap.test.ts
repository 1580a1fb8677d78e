import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import {
  createCampaign,
  createCategory,
  createPerson,
  createProduct,
  createProductList,
  createPublisher,
  createSeries,
} from '../helpers/catalogue.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { changeStore } from '../../src/modules/store/index.js';
import { expectErrorBody } from '../helpers/http.js';
import { createBulkProducts } from '../search/bulk-catalogue.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sitemapDatabase, type SitemapDatabase } from './helpers.js';

// `storefront sitemap generate` end to end: the command writes the files of a real database to
// the file store, the API serves them; sections, the split of a section into files, a section's
// failure that leaves the others written, the status of the last run, and stale files removed.

let env: Record<string, string>;
let scratch: SitemapDatabase | undefined;
let database: DatabaseHandle;
let t: TestApp;
const fixture: Record<string, number> = {};
const FRONT = 'http://localhost:5173';

beforeAll(async () => {
  scratch = await sitemapDatabase('run');
  ({ env, database } = scratch);
  const files = scratch.files;
  const db = database.db;
  const now = Date.now();
  fixture.publisher = await createPublisher(db, 'Varrak');
  fixture.hiddenPublisher = await createPublisher(db, 'Only hidden books');
  fixture.series = await createSeries(db, 'Sari');
  fixture.author = await createPerson(db, 'Autor');
  fixture.translator = await createPerson(db, 'Tõlkija');
  fixture.hiddenAuthor = await createPerson(db, 'Hidden');
  fixture.category = await createCategory(db, { et: 'Romaanid' });
  fixture.inactiveCategory = await createCategory(db, { et: 'Vana' }, { active: false });
  fixture.outletCategory = await createCategory(db, { et: 'Outlet' }, { store: 'WEB2' });
  fixture.book = await createProduct(db, {
    publisherId: fixture.publisher,
    seriesId: fixture.series,
    persons: [{ id: fixture.author }, { id: fixture.translator, role: 'TRANSLATOR' }],
  });
  fixture.second = await createProduct(db);
  fixture.hidden = await createProduct(db, {
    hiddenWeb: true,
    publisherId: fixture.hiddenPublisher,
    persons: [{ id: fixture.hiddenAuthor }],
  });
  fixture.inactive = await createProduct(db, { active: false });
  fixture.outlet = await createProduct(db, { stores: ['WEB2'] });
  fixture.campaign = await createCampaign(db, {
    prices: [{ productId: fixture.book, price: 5 }],
    validFrom: now - 1000,
    validTo: now + 86_400_000,
  });
  fixture.oldCampaign = await createCampaign(db, { prices: [], validFrom: now - 2 * 86_400_000, validTo: now - 86_400_000 });
  fixture.list = await createProductList(db, [fixture.book]);
  for (const [code, slug, active, from] of [
    ['PAGE-1', 'tarne', true, null],
    ['PAGE-2', 'draft', false, null],
    ['PAGE-3', 'future', true, now + 86_400_000],
  ] as const) {
    await db
      .insertInto('content_page')
      .values({
        code,
        store_code: 'WEB',
        slug,
        is_active: active,
        visible_from: from,
        visible_to: null,
        translations: '{}',
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  for (const [code, language, slug, active, to] of [
    ['POST-ET', 'et', 'kevadraamatud', true, null],
    ['POST-EN', 'en', 'spring-books', true, null],
    ['POST-DRAFT', 'et', 'mustand', false, null],
    ['POST-OVER', 'ru', 'proshloe', true, now - 1000],
  ] as const) {
    await db
      .insertInto('blog_post')
      .values({
        code,
        store_code: 'WEB',
        language,
        slug,
        title: slug,
        summary: null,
        body: '<p>Tekst</p>',
        image_url: null,
        author: null,
        category_id: null,
        seo_title: null,
        seo_description: null,
        is_active: active,
        visible_from: null,
        visible_to: to,
        published_at: now,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  await db
    .insertInto('news')
    .values({
      code: 'NEWS-1',
      store_code: 'WEB',
      slug: 'uus-pood',
      image_url: null,
      is_active: true,
      visible_from: null,
      visible_to: null,
      published_at: now,
      created_at: now,
      updated_at: now,
    })
    .execute();
  t = await createTestApp({ env: { FILE_STORE_DIR: files } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await scratch?.close();
});

const get = (path: string) => t.app.inject({ method: 'GET', url: path });
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
async function sectionUrls(section: string): Promise<string[]> {
  const index = await get('/sitemap/WEB/sitemap.xml');
  const files = locs(index.body).filter((loc) => loc.includes(`/${section}-`));
  const urls: string[] = [];
  for (const file of files) urls.push(...locs((await get(new URL(file).pathname)).body));
  return urls;
}

describe('sitemap generate', () => {
  it("writes each section's front-end URLs a guest may see, split into files, and an index the API serves", async () => {
    const run = await runCli(['sitemap', 'generate', '--store=WEB', '--urls-per-file=1'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^WEB\tproducts\t2 URLs\t2 files\t\S+\tok$/m);

    const index = await get('/sitemap/WEB/sitemap.xml');
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(index.body).toContain('<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(locs(index.body)).toContain('https://api.example/sitemap/WEB/products-1.xml');
    expect(locs(index.body)).toContain('https://api.example/sitemap/WEB/products-2.xml');
    expect(index.body).toMatch(/<lastmod>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z<\/lastmod>/);

    const first = await get('/sitemap/WEB/products-1.xml');
    expect(first.body).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(locs(first.body)).toHaveLength(1);
    expect(first.body).toMatch(/<url><loc>[^<]+<\/loc><lastmod>\d{4}-[^<]+Z<\/lastmod><\/url>/);

    expect((await sectionUrls('products')).sort()).toEqual(
      [`${FRONT}/product/${fixture.book}`, `${FRONT}/product/${fixture.second}`].sort(),
    );
    expect(await sectionUrls('categories')).toEqual([`${FRONT}/category/${fixture.category}`]);
    expect((await sectionUrls('persons')).sort()).toEqual(
      [`${FRONT}/person/${fixture.author}`, `${FRONT}/person/${fixture.translator}`].sort(),
    );
    expect(await sectionUrls('publishers')).toEqual([`${FRONT}/publisher/${fixture.publisher}`]);
    expect(await sectionUrls('series')).toEqual([`${FRONT}/series/${fixture.series}`]);
    expect(await sectionUrls('campaigns')).toEqual([`${FRONT}/campaign/${fixture.campaign}`]);
    expect(await sectionUrls('product-lists')).toEqual([`${FRONT}/product-list/${fixture.list}`]);
    expect(await sectionUrls('content-pages')).toEqual([`${FRONT}/content-page/tarne`]);
    expect((await sectionUrls('blog-posts')).sort()).toEqual([`${FRONT}/blog/kevadraamatud`, `${FRONT}/blog/spring-books`]);
    expect(await sectionUrls('news')).toEqual([`${FRONT}/news/uus-pood`]);
    // Only the store asked for.
    expect((await get('/sitemap/WEB2/sitemap.xml')).statusCode).toBe(404);
  });

  it('shows the last run per store and section with `sitemap status`', async () => {
    const status = await runCliProcess(['sitemap', 'status'], env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^WEB\tpersons\t2 URLs\t2 files\t\S+\tok$/m);
    expect(status.stdout).toMatch(/^WEB\tcontent-pages\t1 URLs\t1 files\t\S+\tok$/m);
    expect(status.stdout.trim().split('\n')).toHaveLength(14);
  });

  it('reports a failing section, writes the others and keeps the failed one’s files from the run before in the index', async () => {
    const db = database.db;
    const extra = await createProduct(db);
    await sql`alter table series rename to series_away`.execute(db);
    try {
      const run = await runCli(['sitemap', 'generate', '--store=WEB', '--urls-per-file=1'], env);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/^WEB\tseries\t0 URLs\t1 files\t\S+\tFAILED: .*series/m);
      expect(run.stdout).toMatch(/^WEB\tproducts\t3 URLs\t3 files\t\S+\tok$/m);
      expect(run.stdout).toMatch(/^WEB\tcontent-pages\t1 URLs\t1 files\t\S+\tok$/m);
      expect(await sectionUrls('products')).toContain(`${FRONT}/product/${extra}`);
      expect(await sectionUrls('series')).toEqual([`${FRONT}/series/${fixture.series}`]);
      const status = await runCli(['sitemap', 'status', '--store=WEB'], env);
      expect(status.stdout).toMatch(/^WEB\tseries\t.*FAILED/m);
    } finally {
      await sql`alter table series_away rename to series`.execute(db);
    }
  });

  it('puts 8,000 URLs in a file: 8,003 products make two files, and the files no longer needed are gone', async () => {
    // Written as bulk writes (on PostgreSQL each product's document is built once, not per row); no search needed.
    await createBulkProducts({ database }, 8_000, 'BULK', { fold: false });
    const run = await runCli(['sitemap', 'generate'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^WEB\tproducts\t8003 URLs\t2 files\t\S+\tok$/m);
    // Both stores when none is named: the outlet's own product.
    expect(run.stdout).toMatch(/^WEB2\tproducts\t1 URLs\t1 files\t\S+\tok$/m);
    expect(locs((await get('/sitemap/WEB/products-1.xml')).body)).toHaveLength(8000);
    expect(locs((await get('/sitemap/WEB/products-2.xml')).body)).toHaveLength(3);
    expect((await get('/sitemap/WEB/products-3.xml')).statusCode).toBe(404);
    expect(locs((await get('/sitemap/WEB2/products-1.xml')).body)).toEqual([`http://localhost:5174/product/${fixture.outlet}`]);
  }, 60_000);

  it('leaves out the active categories under an inactive one, whose pages are 404s (test/catalogue/category.test.ts)', async () => {
    const db = database.db;
    const shownChild = await createCategory(db, { et: 'Ajalooromaanid' }, { parentId: fixture.category! });
    const hiddenChild = await createCategory(db, { et: 'Vana alam' }, { parentId: fixture.inactiveCategory! });
    await createCategory(db, { et: 'Vana alam-alam' }, { parentId: hiddenChild });
    const run = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(run.code, run.stderr).toBe(0);
    expect((await sectionUrls('categories')).sort()).toEqual(
      [`${FRONT}/category/${fixture.category}`, `${FRONT}/category/${shownChild}`].sort(),
    );
  });
});

describe('GET /sitemap/{store}/{file}', () => {
  it('answers 404 for an unknown store or file and 400 for a malformed name, never a 500', async () => {
    expect((await get('/sitemap/WEB/nothing-1.xml')).statusCode).toBe(404);
    expect((await get('/sitemap/SHOP/sitemap.xml')).statusCode).toBe(404);
    expect((await get('/sitemap/WEB/..%2F..%2Fsitemap.db')).statusCode).toBe(400);
    expect((await get('/sitemap/WEB/Sitemap.XML')).statusCode).toBe(400);
    expect((await get('/sitemap/../x.xml')).statusCode).toBeLessThan(500);
  });

  it("publishes no file of a store that is switched off, and the store's files again once it is switched on", async () => {
    const run = await runCli(['sitemap', 'generate', '--store=WEB2'], env);
    expect(run.code, run.stderr).toBe(0);
    expect((await get('/sitemap/WEB2/sitemap.xml')).statusCode).toBe(200);
    expect((await get('/sitemap/WEB2/products-1.xml')).statusCode).toBe(200);

    await changeStore(t.database.db, 'WEB2', { isActive: false }, Date.now());
    try {
      expectErrorBody(await get('/sitemap/WEB2/sitemap.xml'), 404, 'Not Found');
      expectErrorBody(await get('/sitemap/WEB2/products-1.xml'), 404, 'Not Found');
      // The other store's files are its own.
      expect((await get('/sitemap/WEB/sitemap.xml')).statusCode).toBe(200);
    } finally {
      await changeStore(t.database.db, 'WEB2', { isActive: true }, Date.now());
    }
    expect((await get('/sitemap/WEB2/sitemap.xml')).statusCode).toBe(200);
  });

  it('refuses bad command lines with the usage (exit 2)', async () => {
    for (const args of [
      ['sitemap', 'generate', '--urls-per-file=9000'],
      ['sitemap', 'status', '--what'],
      // Number() read these as 16, 1000 and 5: a typo written as a sitemap of another size.
      ['sitemap', 'generate', '--urls-per-file=0x10'],
      ['sitemap', 'generate', '--urls-per-file=1e3'],
      ['sitemap', 'generate', '--urls-per-file= 5'],
      ['sitemap', 'generate', '--urls-per-file=5.0'],
    ]) {
      const run = await runCli(args, env);
      expect(run.code, args.join(' ')).toBe(2);
    }
  });
});

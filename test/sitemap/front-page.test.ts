import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sitemapDatabase, type SitemapDatabase } from './helpers.js';

// A store's front page is its most linked page, and no section listed it. A store with nothing a guest
// sees yet (a new store, an outlet between seasons) got an index with no <sitemap> at all, which the
// sitemaps.org schema refuses (a sitemapindex holds 1 to 50,000) and Google reports as an error of the
// store's sitemap. The `pages` section lists the front page always, so the index never is empty.

let scratch: SitemapDatabase | undefined;
let env: Record<string, string>;
let t: TestApp;

beforeAll(async () => {
  scratch = await sitemapDatabase('front');
  env = scratch.env;
  t = await createTestApp({ env: { FILE_STORE_DIR: scratch.files } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await scratch?.close();
});

const get = (path: string) => t.app.inject({ method: 'GET', url: path });
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);

describe('sitemap generate: the front page', () => {
  it("lists an empty store's front page, so that its index names a file", async () => {
    const run = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(run.code, run.stderr).toBe(0);

    const index = await get('/sitemap/WEB/sitemap.xml');
    expect(index.statusCode).toBe(200);
    expect(index.body).toMatch(/<sitemap><loc>[^<]+<\/loc><lastmod>[^<]+<\/lastmod><\/sitemap>/);
    expect(run.stdout).toMatch(/^WEB\tpages\t1 URLs\t1 files\t\S+\tok$/m);
    expect(locs(index.body)).toEqual(['https://api.example/sitemap/WEB/pages-1.xml']);
    const pages = await get('/sitemap/WEB/pages-1.xml');
    expect(pages.statusCode).toBe(200);
    // No <lastmod>: the front page shows the newest products and the blocks of the day, no one date is its change.
    expect(pages.body).toContain('<url><loc>http://localhost:5173/</loc></url>');
  });

  it('lists it under the path of a front-end URL that has one, with the other pages', async () => {
    const product = await createProduct(scratch!.database.db);
    const set = await runCli(['store', 'set', 'WEB', '--frontend-url=https://shop.example/pood/'], env);
    expect(set.code, set.stderr).toBe(0);
    const run = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(run.code, run.stderr).toBe(0);

    const index = locs((await get('/sitemap/WEB/sitemap.xml')).body);
    expect(index).toEqual(['https://api.example/sitemap/WEB/pages-1.xml', 'https://api.example/sitemap/WEB/products-1.xml']);
    expect(locs((await get('/sitemap/WEB/pages-1.xml')).body)).toEqual(['https://shop.example/pood/']);
    expect(locs((await get('/sitemap/WEB/products-1.xml')).body)).toEqual([`https://shop.example/pood/product/${product}`]);

    // A section that fills its last file exactly writes no empty file after it.
    const full = await runCli(['sitemap', 'generate', '--store=WEB', '--urls-per-file=1'], env);
    expect(full.stdout).toMatch(/^WEB\tproducts\t1 URLs\t1 files\t\S+\tok$/m);
    expect((await get('/sitemap/WEB/products-2.xml')).statusCode).toBe(404);
  });
});

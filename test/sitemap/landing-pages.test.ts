import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaign, createProduct, createShop } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Composite pages and discount landing pages are pages of the shop at /composite-page/<slug> and
// /discount-page/<slug> (the paths banners and menus link to, docs/import.md), read by slug like
// content pages. The sitemap left them out: a shop's landing pages, the ones its campaigns send
// shoppers to, were never offered to search engines. Listed now exactly while the public gets them.
// So were the chain's shops' pages, /shop/<code> (the path a shop's QR code draws).

let dir: string;
let env: Record<string, string>;
let t: TestApp;
const FRONT = 'http://localhost:5173';
const DAY = 86_400_000;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-sitemap-pages-'));
  t = await createTestApp({ sqliteFile: true, env: { FILE_STORE_DIR: join(dir, 'files') } });
  env = { DATABASE_URL: t.config.databaseUrl, FILE_STORE_DIR: join(dir, 'files'), PUBLIC_URL: 'https://api.example' };
  const db = t.database.db;
  const now = Date.now();
  await createShop(db, { code: 'TARTU-1' });
  await db
    .updateTable('shop')
    .set({ is_active: false })
    .where('id', '=', await createShop(db, { code: 'CLOSED' }))
    .execute();
  await db
    .updateTable('shop')
    .set({ is_listed: false })
    .where('id', '=', await createShop(db, { code: 'WAREHOUSE' }))
    .execute();
  const book = await createProduct(db);
  await createCampaign(db, { code: 'XMAS', prices: [{ productId: book, price: 5 }], validFrom: now - DAY, validTo: now + DAY });
  const at = (ms: number) => new Date(ms).toISOString();
  const page = (code: string, fields: Record<string, unknown>) =>
    JSON.stringify({ code, store: 'WEB', translations: { et: { title: code } }, blocks: [], ...fields });
  const lines = [
    page('GIFTS', { slug: 'kingid' }),
    page('SUMMER', { slug: 'suvi', visibleFrom: at(now - 2 * DAY), visibleTo: at(now - DAY) }),
    page('WINTER', { slug: 'talv', visibleFrom: at(now + DAY) }),
    page('DRAFT', { slug: 'mustand', active: false }),
    page('OUTLET', { slug: 'outlet', store: 'WEB2' }),
    page('XMAS-PAGE', { kind: 'DISCOUNT', slug: 'joulud', campaign: 'XMAS' }),
    page('OVER-PAGE', { kind: 'DISCOUNT', slug: 'labi', campaign: 'XMAS', visibleTo: at(now - 1000) }),
    page('HOME', { kind: 'MAIN' }),
  ];
  const file = join(dir, 'pages.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const imported = await runCli(['import', 'composite-pages', file], env);
  expect(imported.code, imported.stdout + imported.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { store: 'WEB' } });
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);

async function allUrls(): Promise<string[]> {
  const urls: string[] = [];
  for (const file of locs((await get('/sitemap/WEB/sitemap.xml')).body)) urls.push(...locs((await get(new URL(file).pathname)).body));
  return urls;
}

describe('sitemap: composite and discount landing pages', () => {
  it('lists the pages the public gets now, at their front-end paths, and none it does not', async () => {
    const run = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const pages = (await allUrls()).filter((url) => /\/(composite|discount)-page\//.test(url));
    expect(pages.sort()).toEqual([`${FRONT}/composite-page/kingid`, `${FRONT}/discount-page/joulud`]);
    // The same pages the API answers for them, and only those.
    for (const slug of ['kingid', 'suvi', 'talv', 'mustand', 'outlet']) {
      const listed = pages.includes(`${FRONT}/composite-page/${slug}`);
      expect((await get(`/composite-page/${slug}`)).statusCode, slug).toBe(listed ? 200 : 404);
    }
    for (const slug of ['joulud', 'labi']) {
      const listed = pages.includes(`${FRONT}/discount-page/${slug}`);
      expect((await get(`/discount-page/${slug}`)).statusCode, slug).toBe(listed ? 200 : 404);
    }
  });

  it("lists the shops' pages the public gets, and not a closed shop's or a warehouse's", async () => {
    const run = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const shops = (await allUrls()).filter((url) => url.startsWith(`${FRONT}/shop/`));
    expect(shops).toEqual([`${FRONT}/shop/TARTU-1`]);
    for (const code of ['TARTU-1', 'CLOSED', 'WAREHOUSE']) {
      expect((await get(`/shop/${code}`)).statusCode, code).toBe(shops.includes(`${FRONT}/shop/${code}`) ? 200 : 404);
    }
  });
});

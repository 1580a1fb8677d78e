import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createProduct } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sitemapDatabase, type SitemapDatabase } from './helpers.js';

// The sitemap protocol takes URLs as RFC 3986 has them (ASCII, the rest percent-encoded, the host
// of an internationalised domain in its xn-- form), XML-escaped. `store set --frontend-url` and
// PUBLIC_URL take a URL as a person types it (`https://pööd.example/raamatud-ä`): the files and the
// index wrote it raw, which crawlers refuse or read as another URL.

let env: Record<string, string>;
let scratch: SitemapDatabase | undefined;
let database: DatabaseHandle;
let t: TestApp;
let product: number;

beforeAll(async () => {
  scratch = await sitemapDatabase('url', { PUBLIC_URL: 'https://api.näide.example', BASE_PATH: '/api' });
  ({ env, database } = scratch);
  const files = scratch.files;
  product = await createProduct(database.db);
  const now = Date.now();
  await database.db
    .insertInto('content_page')
    .values({
      code: 'PAGE-1',
      store_code: 'WEB',
      slug: 'õun & "pirn"',
      is_active: true,
      visible_from: null,
      visible_to: null,
      translations: '{}',
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

describe('sitemap generate: URLs', () => {
  it('are written percent-encoded (and the host in its ASCII form) when the front-end URL or PUBLIC_URL is not ASCII', async () => {
    const set = await runCli(['store', 'set', 'WEB', "--frontend-url=https://Pööd.example/raamatud-ä/o'neill|x"], env);
    expect(set.code, set.stderr).toBe(0);
    const run = await runCli(['sitemap', 'generate', '--store=WEB'], env);
    expect(run.code, run.stderr).toBe(0);

    const index = await get('/sitemap/WEB/sitemap.xml');
    expect(index.statusCode).toBe(200);
    expect(locs(index.body)).toContain('https://api.xn--nide-loa.example/api/sitemap/WEB/products-1.xml');

    const front = 'https://xn--pd-fkaa.example/raamatud-%C3%A4/o&apos;neill%7Cx';
    expect(locs((await get('/sitemap/WEB/products-1.xml')).body)).toEqual([`${front}/product/${product}`]);
    expect(locs((await get('/sitemap/WEB/content-pages-1.xml')).body)).toEqual([`${front}/content-page/%C3%B5un%20%26%20%22pirn%22`]);
    // Nothing but RFC 3986's characters (and XML's escapes of them) in any <loc>.
    for (const loc of [...locs(index.body), ...locs((await get('/sitemap/WEB/products-1.xml')).body)])
      expect(loc).toMatch(/^[A-Za-z0-9\-._~:/?#@!$&'()*+,;=%]+$/);
  }, 60_000);
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createProduct } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sitemapDatabase, type SitemapDatabase } from './helpers.js';

// A section that fails half-way has already replaced its first files with this run's. The index
// listed the run before's files with the run before's date: the replaced ones under a date older
// than their content (a crawler that read them since skips them), and those past the run
// before's count not at all, left on disk for good.

let env: Record<string, string>;
let scratch: SitemapDatabase | undefined;
let database: DatabaseHandle;
let t: TestApp;

beforeAll(async () => {
  scratch = await sitemapDatabase('failed');
  ({ env, database } = scratch);
  const files = scratch.files;
  for (let index = 0; index < 2; index += 1) await createProduct(database.db);
  t = await createTestApp({ env: { FILE_STORE_DIR: files } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await scratch?.close();
});

const get = (path: string) => t.app.inject({ method: 'GET', url: path });
const generate = () => runCli(['sitemap', 'generate', '--store=WEB', '--urls-per-file=1'], env);

/** The served index's files, each with its lastmod. */
async function indexed(): Promise<Record<string, string>> {
  const xml = (await get('/sitemap/WEB/sitemap.xml')).body;
  return Object.fromEntries(
    [...xml.matchAll(/<loc>[^<]*\/([^/<]+)<\/loc><lastmod>([^<]+)<\/lastmod>/g)].map((match) => [match[1]!, match[2]!]),
  );
}

describe('sitemap generate: a section that fails half-way', () => {
  it('lists the files it already wrote with its own date, those past the last count too', async () => {
    const first = await generate();
    expect(first.code, first.stderr).toBe(0);
    const firstDate = (await indexed())['products-1.xml']!;

    // Two products more, and one whose date no sitemap can write (past what a date can be), last.
    for (let index = 0; index < 2; index += 1) await createProduct(database.db);
    const broken = await createProduct(database.db);
    await database.db.updateTable('product').set({ updated_at: 9_000_000_000_000_000 }).where('id', '=', broken).execute();
    await new Promise((resolve) => setTimeout(resolve, 5));

    const failed = await generate();
    expect(failed.code).toBe(1);
    const line = /^WEB\tproducts\t4 URLs\t4 files\t(\S+)\tFAILED/m.exec(failed.stdout);
    expect(line, failed.stdout).not.toBeNull();
    const runDate = line![1]!;
    expect(runDate).not.toBe(firstDate);
    expect(await indexed()).toEqual({
      'pages-1.xml': runDate,
      'products-1.xml': runDate,
      'products-2.xml': runDate,
      'products-3.xml': runDate,
      'products-4.xml': runDate,
    });
    for (let file = 1; file <= 4; file += 1) expect((await get(`/sitemap/WEB/products-${file}.xml`)).statusCode).toBe(200);

    // Mended, with fewer products: the files no run needs go, those the failed run listed too.
    await database.db.deleteFrom('product').where('id', '=', broken).execute();
    await database.db.updateTable('product').set({ is_active: false }).where('id', '>', 0).execute();
    const mended = await generate();
    expect(mended.code, mended.stderr).toBe(0);
    for (let file = 1; file <= 4; file += 1) expect((await get(`/sitemap/WEB/products-${file}.xml`)).statusCode).toBe(404);
  }, 60_000);
});

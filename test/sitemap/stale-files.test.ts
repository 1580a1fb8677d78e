import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { createProduct } from '../helpers/catalogue.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { lockWaiters, until } from '../helpers/lock-waits.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';
import { sitemapDatabase, type SitemapDatabase } from './helpers.js';

// A run removes the files a section no longer needs (a catalogue that shrank). It removed them as
// soon as the section was written, while the index of the run before, which lists them, was still
// the one served until the run's very end: minutes on a large catalogue (every later section), for
// good when the run died before its index. A search engine reading that index met 404s. Files go
// now once the run's own index, which no longer lists them, is in place.

let env: Record<string, string>;
let scratch: SitemapDatabase | undefined;
let database: DatabaseHandle;
let t: TestApp;
const products: number[] = [];

beforeAll(async () => {
  scratch = await sitemapDatabase('stale');
  ({ env, database } = scratch);
  const files = scratch.files;
  for (let index = 0; index < 3; index += 1) products.push(await createProduct(database.db));
  t = await createTestApp({ env: { FILE_STORE_DIR: files } });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await scratch?.close();
});

const get = (path: string) => t.app.inject({ method: 'GET', url: path });
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((match) => match[1]!);
const generate = () => runCli(['sitemap', 'generate', '--store=WEB', '--urls-per-file=1'], env);

/** The files the served index lists, each with the status the API answers it with. */
async function listedFiles(): Promise<Record<string, number>> {
  const listed: Record<string, number> = {};
  for (const loc of locs((await get('/sitemap/WEB/sitemap.xml')).body))
    listed[loc.split('/').pop()!] = (await get(new URL(loc).pathname)).statusCode;
  return listed;
}

/**
 * Runs `generate` and, on PostgreSQL, holds it at the news (the last section) until `meanwhile` has
 * looked at what is served; SQLite cannot hold a run half-way: there it looks before the run.
 */
async function heldAtLastSection(meanwhile: () => Promise<void>): Promise<CliResult> {
  if (engine !== 'postgres') {
    await meanwhile();
    return generate();
  }
  let run!: Promise<CliResult>;
  await database.db.transaction().execute(async (trx) => {
    await sql`lock table news in access exclusive mode`.execute(trx);
    run = generate();
    await until('the run to reach the news', async () => (await lockWaiters(database.db)) >= 1);
    await meanwhile();
  });
  return run;
}

describe('sitemap generate: files a section no longer needs', () => {
  it('stay served while the index served lists them, and go with the run that stops listing them', async () => {
    const first = await generate();
    expect(first.code, first.stderr).toBe(0);
    expect(await listedFiles()).toEqual({ 'pages-1.xml': 200, 'products-1.xml': 200, 'products-2.xml': 200, 'products-3.xml': 200 });

    // One product fewer: the products need two files.
    await database.db.updateTable('product').set({ is_active: false }).where('id', '=', products[2]!).execute();
    const run = await heldAtLastSection(async () => {
      const listed = await listedFiles();
      expect(listed['products-3.xml'], 'a file the served index lists').toBe(200);
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^WEB\tproducts\t2 URLs\t2 files\t\S+\tok$/m);

    const listed = await listedFiles();
    expect(Object.keys(listed).filter((file) => file.startsWith('products-'))).toEqual(['products-1.xml', 'products-2.xml']);
    expect(Object.values(listed).every((status) => status === 200)).toBe(true);
    expect((await get('/sitemap/WEB/products-3.xml')).statusCode).toBe(404);
  }, 60_000);
});

import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/db/database.js';
import { localFileStore, type FileStore } from '../../src/infra/file-store/index.js';
import { sitemapRoutes } from '../../src/modules/sitemap/index.js';
import { createStoreCache } from '../../src/modules/store/index.js';
import { createProduct } from '../helpers/catalogue.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { sitemapDatabase, type SitemapDatabase } from './helpers.js';

// A sitemap file is served while `sitemap generate` may rewrite or remove it (cron runs nightly,
// crawlers read all day). The route asked the file store for the size, then opened the file: a run
// replacing it in between gave one version's Content-Length with the other's bytes (an XML cut
// short, or a connection left waiting for bytes that never come), removing it a 500. The file
// store here runs the "run" right after the route has looked the file up, whichever way it does.

let env: Record<string, string>;
let scratch: SitemapDatabase | undefined;
let database: DatabaseHandle;
let t: TestApp;
/** What a run does to the key between the route's look-up and its read; nothing by default. */
let meanwhile: (store: FileStore, key: string) => Promise<void> = async () => {};

/** The local store, with `meanwhile` run once each look-up of a file (stat or open) has answered. */
function racingStore(inner: FileStore): FileStore {
  const after = async <T>(key: string, found: T): Promise<T> => {
    await meanwhile(inner, key);
    return found;
  };
  return {
    put: (key, content) => inner.put(key, content),
    stat: async (key) => after(key, await inner.stat(key)),
    open: async (key) => after(key, await inner.open(key)),
    createReadStream: (key, span) => inner.createReadStream(key, span),
    delete: (key) => inner.delete(key),
  };
}

beforeAll(async () => {
  scratch = await sitemapDatabase('race');
  ({ env, database } = scratch);
  const files = scratch.files;
  for (let index = 0; index < 3; index += 1) await createProduct(database.db);
  // The sitemap's own route, on the files the command writes, through the racing store.
  t = await createTestApp({
    env: { FILE_STORE_DIR: files },
    beforeReady: async (app) => {
      await app.register(sitemapRoutes, {
        prefix: '/raced',
        fileStore: racingStore(localFileStore(files)),
        stores: createStoreCache(database, 0),
      });
    },
  });
  const run = await runCli(['sitemap', 'generate', '--store=WEB'], env);
  expect(run.code, run.stderr).toBe(0);
}, 60_000);
afterAll(async () => {
  await t?.close();
  await scratch?.close();
});

const get = (path: string) => t.app.inject({ method: 'GET', url: path });

/** The answer is one whole file: as long as it says, a sitemap from its head to its end. */
function expectWholeFile(response: Awaited<ReturnType<typeof get>>) {
  expect(response.statusCode, response.body).toBe(200);
  expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
  expect(response.body).toMatch(/^<\?xml [^]*<\/urlset>\n$/);
}

const rewritten = (urls: number) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${'<url><loc>http://localhost:5173/product/1</loc></url>\n'.repeat(urls)}</urlset>\n`;

describe('GET /sitemap/{store}/{file} while a run rewrites the file', () => {
  it('answers one whole version of a file replaced by a longer or a shorter one', async () => {
    const path = '/raced/sitemap/WEB/products-1.xml';
    expectWholeFile(await get(path));
    for (const urls of [40, 0]) {
      meanwhile = async (store, key) => {
        meanwhile = async () => {};
        await store.put(key, Readable.from([rewritten(urls)]));
      };
      expectWholeFile(await get(path));
    }
  });

  it('answers the file whole, or a 404, when the run removes it, never a 500', async () => {
    meanwhile = async (store, key) => {
      meanwhile = async () => {};
      await store.delete(key);
    };
    const response = await get('/raced/sitemap/WEB/products-1.xml');
    if (response.statusCode !== 404) expectWholeFile(response);
    expect((await get('/raced/sitemap/WEB/products-1.xml')).statusCode).toBe(404);
  });
});

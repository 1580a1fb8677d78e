import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Who } from '../basket/helpers.js';
import { createDownloadWorld, downloads, upload, type DownloadWorld } from './helpers.js';

// GET /bought-product said `entitled` for an e-book bought before its publisher delivered the file:
// the front end offered a download that GET /download did not list. `available` says whether a file
// of it can be downloaded now, as GET /download lists them: false until a file arrives, false again
// when the only one is removed.

let world: DownloadWorld;
beforeAll(async () => {
  world = await createDownloadWorld();
}, 120_000);
afterAll(async () => {
  await world?.close();
});

async function boughtDownload(who: Who) {
  const response = await world.t.app.inject({
    method: 'GET',
    url: '/bought-product',
    headers: { authorization: `Bearer ${who.bearer}`, store: 'WEB' },
  });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as Array<{ productId: number; download: unknown }>).map((item) => [item.productId, item.download]);
}

describe('GET /bought-product: whether a bought download has a file now', () => {
  it('is entitled but not available while the product has no file, as GET /download lists nothing', async () => {
    expect(await boughtDownload(world.customer)).toEqual([[world.ebooks[0]!.id, { entitled: true, available: false }]]);
    expect(await downloads(world, world.customer)).toEqual([]);
  });

  it('is available once a file is uploaded, to the buyer only', async () => {
    expect((await upload(world, world.ebooks[0]!.code, 'EPUB', randomBytes(1_000))).statusCode).toBe(200);
    expect(await boughtDownload(world.customer)).toEqual([[world.ebooks[0]!.id, { entitled: true, available: true }]]);
    expect(await downloads(world, world.customer)).toHaveLength(1);
    expect(await boughtDownload(world.stranger)).toEqual([]);
  });

  it('is not available again when its only file is removed', async () => {
    const removed = await world.t.app.inject({
      method: 'DELETE',
      url: `/admin/product-files/${world.ebooks[0]!.code}/EPUB`,
      headers: { authorization: `Bearer ${world.operatorKey}` },
    });
    expect(removed.statusCode, removed.body).toBe(204);
    expect(await boughtDownload(world.customer)).toEqual([[world.ebooks[0]!.id, { entitled: true, available: false }]]);
    await world.t.drainJobs();
    expect(await boughtDownload(world.customer)).toEqual([[world.ebooks[0]!.id, { entitled: true, available: false }]]);
    expect(await downloads(world, world.customer)).toEqual([]);
  });
});

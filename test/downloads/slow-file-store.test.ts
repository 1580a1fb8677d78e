import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { startHoldingS3Proxy, type HoldingS3Proxy } from './holding-s3-proxy.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// A download waits on the file store (S3: a round trip, seconds when the bucket is slow) while
// nothing else waits on the download: the bytes are opened outside the transaction that counts it.
// Opened inside, SQLite's one connection stayed taken for the round trip and every other request's
// write in the process queued behind a bucket's answer. A proxy in front of the local S3 server
// holds the first read of the object until the test lets it go.

let s3: S3Server;
let proxy: HoldingS3Proxy;
let world: DownloadWorld;

beforeAll(async () => {
  s3 = await startS3Server();
  proxy = await startHoldingS3Proxy(s3.endpoint);
  world = await createDownloadWorld({ ...s3.env, FILE_STORE_S3_ENDPOINT: proxy.endpoint });
});
afterAll(async () => {
  proxy?.release();
  await world?.close();
  await proxy?.close();
  await s3?.close();
});

it("another shopper's write is answered while a download waits on the file store", async () => {
  const book = randomBytes(50_000);
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', book)).statusCode).toBeLessThan(300);
  const [item] = await downloads(world, world.customer);
  const path = await linkPath(world, world.customer, item!.id);

  const seen = proxy.holdNextRead();
  const download = get(world, path);
  await seen;
  // The bucket has not answered: a write of another client (a wishlist add) must not wait for it.
  const write = world.t.app.inject({
    method: 'POST',
    url: '/wishlist',
    headers: { authorization: `Bearer ${world.stranger.bearer}` },
    payload: { productId: world.ebooks[0]!.id },
  });
  const waited = await Promise.race([write.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 5_000))]);
  proxy.release();
  expect(waited, 'the write waited for the download to open its file').toBe(false);
  expect((await write).statusCode).toBeLessThan(300);
  const answer = await download;
  expect(answer.statusCode).toBe(200);
  expect(answer.rawPayload.equals(book)).toBe(true);
});

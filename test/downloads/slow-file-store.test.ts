import { randomBytes } from 'node:crypto';
import { createServer, request as forward, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// A download waits on the file store (S3: a round trip, seconds when the bucket is slow) while
// nothing else waits on the download: the bytes are opened outside the transaction that counts it.
// Opened inside, SQLite's one connection stayed taken for the round trip and every other request's
// write in the process queued behind a bucket's answer. A proxy in front of the local S3 server
// holds the first read of the object until the test lets it go.

let s3: S3Server;
let proxy: Server;
let world: DownloadWorld;
let holding = false;
const held: Array<() => void> = [];
let heldSeen: () => void = () => {};

beforeAll(async () => {
  s3 = await startS3Server();
  const target = new URL(s3.endpoint);
  proxy = createServer((incoming, answer) => {
    const pass = () =>
      incoming.pipe(
        forward(
          { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
          (from) => {
            answer.writeHead(from.statusCode ?? 502, from.headers);
            from.pipe(answer);
          },
        ),
      );
    if (holding && incoming.method === 'GET' && incoming.url?.includes('.epub')) {
      holding = false;
      held.push(pass);
      heldSeen();
    } else pass();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  world = await createDownloadWorld({ ...s3.env, FILE_STORE_S3_ENDPOINT: endpoint });
});
afterAll(async () => {
  for (const pass of held) pass();
  await world?.close();
  await new Promise((resolve) => proxy?.close(resolve));
  await s3?.close();
});

it("another shopper's write is answered while a download waits on the file store", async () => {
  const book = randomBytes(50_000);
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', book)).statusCode).toBeLessThan(300);
  const [item] = await downloads(world, world.customer);
  const path = await linkPath(world, world.customer, item!.id);

  const seen = new Promise<void>((resolve) => (heldSeen = resolve));
  holding = true;
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
  for (const pass of held.splice(0)) pass();
  expect(waited, 'the write waited for the download to open its file').toBe(false);
  expect((await write).statusCode).toBeLessThan(300);
  const answer = await download;
  expect(answer.statusCode).toBe(200);
  expect(answer.rawPayload.equals(book)).toBe(true);
});

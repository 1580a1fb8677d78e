import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { s3FileStore } from '../../src/infra/file-store/s3-file-store.js';
import type { FileStore } from '../../src/infra/file-store/index.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// The file store on an S3-compatible bucket: the store itself against a local S3 server (a
// multipart upload streamed from a stream, ranges, stat, delete), and a bought e-book uploaded
// and downloaded through the API with the bucket behind it.

let s3: S3Server;
let store: FileStore;

async function text(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

beforeAll(async () => {
  s3 = await startS3Server();
  const config = loadConfig(s3.env).fileStore.s3!;
  store = s3FileStore(config);
});
afterAll(async () => s3?.close());

describe('the S3 store', () => {
  it('streams a multipart upload, answers its size, reads ranges, and deletes', async () => {
    // 20 MB: three parts of 8 MB at most, never the whole file in one buffer on our side.
    const content = randomBytes(20 * 1024 * 1024);
    const parts = Array.from({ length: 20 }, (_, index) => content.subarray(index * 1024 * 1024, (index + 1) * 1024 * 1024));
    expect(await store.put('ebooks/big.epub', Readable.from(parts))).toEqual({ size: content.length });
    expect(await store.stat('ebooks/big.epub')).toEqual({ size: content.length });
    expect((await text(await store.createReadStream('ebooks/big.epub', { start: 10, end: 19 }))).equals(content.subarray(10, 20))).toBe(
      true,
    );
    const tail = await text(await store.createReadStream('ebooks/big.epub', { start: content.length - 5 }));
    expect(tail.equals(content.subarray(content.length - 5))).toBe(true);
    expect((await text(await store.createReadStream('ebooks/big.epub'))).equals(content)).toBe(true);
    const opened = (await store.open('ebooks/big.epub'))!;
    expect(opened.size).toBe(content.length);
    expect((await text(opened.stream)).equals(content)).toBe(true);
    await store.delete('ebooks/big.epub');
    expect(await store.stat('ebooks/big.epub')).toBeUndefined();
    await store.delete('ebooks/never-there.epub');
  });

  it('answers undefined for a missing file and refuses keys outside its own', async () => {
    expect(await store.stat('nothing/here.pdf')).toBeUndefined();
    expect(await store.open('nothing/here.pdf')).toBeUndefined();
    await expect(store.put('../escape.epub', Readable.from([Buffer.from('x')]))).rejects.toThrow(/file store keys/);
  });

  it('is configured by all four variables or none', () => {
    expect(() => loadConfig({ FILE_STORE_S3_BUCKET: 'books' })).toThrow(
      /FILE_STORE_S3_ENDPOINT, FILE_STORE_S3_ACCESS_KEY, FILE_STORE_S3_SECRET_KEY must be set too/,
    );
    expect(() => loadConfig({ ...s3.env, FILE_STORE_S3_PREFIX: '/abs' })).toThrow(/FILE_STORE_S3_PREFIX/);
    expect(loadConfig({}).fileStore.s3).toBeUndefined();
  });
});

describe('downloads from the bucket', () => {
  let world: DownloadWorld;
  beforeAll(async () => {
    world = await createDownloadWorld(s3.env);
  });
  afterAll(async () => world?.close());

  it('an uploaded e-book is stored in the bucket and downloaded whole and by range', async () => {
    const book = randomBytes(300_000);
    const uploaded = await upload(world, world.ebooks[0]!.code, 'EPUB', book);
    expect(uploaded.statusCode, uploaded.body).toBeLessThan(300);
    const [item] = await downloads(world, world.customer);
    expect(item).toMatchObject({ size: book.length, format: 'EPUB' });
    const path = await linkPath(world, world.customer, item!.id);
    const whole = await get(world, path);
    expect(whole.statusCode).toBe(200);
    expect(whole.rawPayload.equals(book)).toBe(true);
    const part = await get(world, path, {}, { range: 'bytes=1000-1999' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${book.length}`);
    expect(part.rawPayload.equals(book.subarray(1000, 2000))).toBe(true);
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadWorld } from './helpers.js';

// A web front-end on an allowed origin that fetch()es a download link (to save it under its name,
// show progress, or resume it in ranges) reads only the headers the answer exposes: besides the
// CORS-safelisted ones (Content-Type, Content-Length...), a browser hides every header not named in
// Access-Control-Expose-Headers.

const ORIGIN = 'https://shop.example';
let world: DownloadWorld;
const bytes = randomBytes(5_000);

beforeAll(async () => {
  world = await createDownloadWorld({ CORS_ORIGINS: ORIGIN });
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', bytes)).statusCode).toBe(200);
});

afterAll(async () => {
  await world?.close();
});

function exposed(headers: Record<string, unknown>): string[] {
  expect(headers['access-control-allow-origin']).toBe(ORIGIN);
  return String(headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
}

describe('a download link fetched from an allowed origin', () => {
  it('exposes the file name, its ETag and that ranges are served', async () => {
    const item = (await downloads(world, world.customer))[0]!;
    const whole = await get(world, await linkPath(world, world.customer, item.id), {}, { origin: ORIGIN });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-disposition']).toMatch(/^attachment; filename=/);
    const names = exposed(whole.headers);
    for (const header of ['content-disposition', 'accept-ranges', 'etag']) expect(names, header).toContain(header);
  });

  it('exposes Content-Range of a part, and of a range past the end (416)', async () => {
    const item = (await downloads(world, world.customer))[0]!;
    const path = await linkPath(world, world.customer, item.id);
    const part = await get(world, path, {}, { origin: ORIGIN, range: 'bytes=0-99' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-99/${bytes.length}`);
    expect(exposed(part.headers)).toContain('content-range');

    const past = await get(world, path, {}, { origin: ORIGIN, range: `bytes=${bytes.length}-` });
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${bytes.length}`);
    expect(exposed(past.headers)).toContain('content-range');
  });
});

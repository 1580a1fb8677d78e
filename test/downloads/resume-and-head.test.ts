import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createDownloadWorld, downloads, get, linkPath, upload, type DownloadItem, type DownloadWorld } from './helpers.js';

// What a browser or a download manager does with a download link besides one GET: it asks with HEAD
// for the size and whether ranges are served, and it resumes a broken download with a Range and the
// ETag it was given as If-Range, getting the rest only while the file is still the same one.

let world: DownloadWorld;
const first = randomBytes(40_000);
let item: DownloadItem;
const en = { 'x-app-language': 'en' };
const LIMIT = 14;

beforeAll(async () => {
  // One file's worth of bytes per link: anything a HEAD spent shows.
  world = await createDownloadWorld({ DOWNLOAD_LIMIT: String(LIMIT), DOWNLOAD_LINK_BUDGET: '1' });
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', first)).statusCode).toBe(200);
  item = (await downloads(world, world.customer))[0]!;
});

afterAll(async () => {
  await world?.close();
});

function head(url: string, headers: Record<string, string> = {}) {
  return world.t.app.inject({ method: 'HEAD', url, headers });
}

/** A refused HEAD: the GET's status (Node sends no body with an answer to HEAD). */
async function expectHeadRefused(url: string, status: number, headers: Record<string, string> = {}) {
  const response = await head(url, headers);
  expect(response.statusCode, url).toBe(status);
  return response;
}

async function used(): Promise<number> {
  return (await downloads(world, world.customer)).find((each) => each.id === item.id)!.downloadsUsed;
}

describe('a resumed download (Range with If-Range)', () => {
  it('gives the rest of the file for its ETag, and the whole file for any other validator', async () => {
    const path = await linkPath(world, world.customer, item.id);
    const firstPiece = await get(world, path, {}, { range: 'bytes=0-9999' });
    expect(firstPiece.statusCode, firstPiece.body).toBe(206);
    const tag = firstPiece.headers.etag as string;
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);

    const rest = await get(world, path, {}, { range: 'bytes=10000-', 'if-range': tag });
    expect(rest.statusCode, rest.body).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes 10000-39999/${first.length}`);
    expect(rest.headers.etag).toBe(tag);
    expect(Buffer.concat([firstPiece.rawPayload, rest.rawPayload]).equals(first)).toBe(true);

    // If-Range compares strongly, and a date never matches (no Last-Modified is sent).
    for (const other of [`W/${tag}`, '"another"', 'Wed, 21 Oct 2026 07:28:00 GMT']) {
      const fresh = await linkPath(world, world.customer, item.id);
      const whole = await get(world, fresh, {}, { range: 'bytes=10000-', 'if-range': other });
      expect(whole.statusCode, other).toBe(200);
      expect(whole.headers['content-range'], other).toBeUndefined();
      expect(whole.rawPayload.equals(first), other).toBe(true);
    }
  });

  it('gives the whole new file once the file was replaced since the first piece, under a new ETag', async () => {
    const path = await linkPath(world, world.customer, item.id);
    const firstPiece = await get(world, path, {}, { range: 'bytes=0-99' });
    expect(firstPiece.statusCode).toBe(206);
    const second = randomBytes(30_000);
    expect((await upload(world, world.ebooks[0]!.code, 'EPUB', second)).statusCode).toBe(200);

    const resumed = await get(
      world,
      await linkPath(world, world.customer, item.id),
      {},
      {
        range: 'bytes=100-',
        'if-range': firstPiece.headers.etag as string,
      },
    );
    expect(resumed.statusCode, resumed.body).toBe(200);
    expect(resumed.rawPayload.equals(second)).toBe(true);
    expect(resumed.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(resumed.headers.etag).not.toBe(firstPiece.headers.etag);
  });
});

describe('HEAD /direct-download/{token}', () => {
  it('answers what a GET would, without the body, counting no download and spending none of the link', async () => {
    const path = await linkPath(world, world.customer, item.id);
    const before = await used();
    const size = (await downloads(world, world.customer)).find((each) => each.id === item.id)!.size;

    const whole = await head(path);
    expect(whole.statusCode, whole.body).toBe(200);
    expect(whole.rawPayload.length).toBe(0);
    expect(whole.headers).toMatchObject({
      'content-length': String(size),
      'accept-ranges': 'bytes',
      'content-type': 'application/epub+zip',
      'cache-control': 'private, no-store',
    });
    expect(whole.headers['content-disposition']).toMatch(/^attachment; filename=/);
    expect(whole.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);

    const piece = await head(path, { range: 'bytes=0-99' });
    expect(piece.statusCode).toBe(206);
    expect(piece.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(piece.headers['content-length']).toBe('100');
    const past = await expectHeadRefused(path, 416, { range: `bytes=${size}-` });
    expect(past.headers['content-range']).toBe(`bytes */${size}`);
    // Many HEADs: the link's budget is one file's worth, and the purchase's count is as it was.
    for (let i = 0; i < 3; i += 1) expect((await head(path)).statusCode).toBe(200);
    expect(await used()).toBe(before);

    const got = await get(world, path);
    expect(got.statusCode, got.body).toBe(200);
    expect(got.headers.etag).toBe(whole.headers.etag);
    expect(await used()).toBe(before + 1);
  });

  it("with an If-None-Match that holds the file's ETag is a 304 to GET and HEAD alike, counting and spending nothing", async () => {
    const path = await linkPath(world, world.customer, item.id);
    const before = await used();
    const size = (await downloads(world, world.customer)).find((each) => each.id === item.id)!.size;
    const tag = (await head(path)).headers.etag as string;
    // A client that kept the file (curl --etag-compare, a reader app's library) asks whether it is still the one.
    const holding = [tag, `W/${tag}`, `"other", ${tag}`, '*'];
    for (const ifNoneMatch of holding) {
      for (const method of ['GET', 'HEAD'] as const) {
        const answer = await world.t.app.inject({ method, url: path, headers: { 'if-none-match': ifNoneMatch, range: 'bytes=0-9' } });
        expect(answer.statusCode, `${method} ${ifNoneMatch}`).toBe(304);
        expect(answer.rawPayload.length).toBe(0);
        expect(answer.headers.etag).toBe(tag);
        expect(answer.headers['cache-control']).toBe('private, no-store');
        expect(answer.headers['content-length']).toBeUndefined();
        expect(answer.headers['content-disposition']).toBeUndefined();
      }
    }
    expect(await used()).toBe(before);
    // Nothing of the link was spent (its budget is one file's worth): it still serves the whole file, counted once.
    const got = await get(world, path);
    expect(got.statusCode, got.body).toBe(200);
    expect(got.rawPayload.length).toBe(size);
    expect(await used()).toBe(before + 1);
  });

  it('with an If-None-Match of another file, or an If-Modified-Since (no Last-Modified is sent), answers the file', async () => {
    const tag = (await head(await linkPath(world, world.customer, item.id))).headers.etag as string;
    const conditionals: Array<Record<string, string>> = [
      { 'if-none-match': '"another"' },
      { 'if-modified-since': new Date().toUTCString() },
    ];
    for (const conditional of conditionals) {
      const path = await linkPath(world, world.customer, item.id);
      const before = await used();
      const got = await get(world, path, {}, conditional);
      expect(got.statusCode, JSON.stringify(conditional)).toBe(200);
      expect(got.headers.etag).toBe(tag);
      expect(await used()).toBe(before + 1);
    }
  });

  it('with a matching If-None-Match is still refused where the file would be (RFC 9110 13.2.1): altered, another client', async () => {
    const path = await linkPath(world, world.customer, item.id);
    const tag = (await head(path)).headers.etag as string;
    const matching = { 'if-none-match': tag };
    expect((await get(world, `${path.slice(0, -3)}AAA`, {}, matching)).statusCode).toBe(403);
    expect((await get(world, path, world.stranger, matching)).statusCode).toBe(403);
    await expectHeadRefused(path, 403, { ...matching, authorization: `Bearer ${world.stranger.bearer}` });
  });

  it('is refused as the GET would be: an altered link, another client, a purchase past its limit', async () => {
    const path = await linkPath(world, world.customer, item.id);
    await expectHeadRefused(`${path.slice(0, -3)}AAA`, 403);
    await expectHeadRefused(path, 403, { authorization: `Bearer ${world.stranger.bearer}` });
    // Other links use up the purchase's downloads; this one has not been used.
    while ((await used()) < LIMIT) expect((await get(world, await linkPath(world, world.customer, item.id))).statusCode).toBe(200);
    await expectHeadRefused(path, 403);
    expectErrorBody(await get(world, path, {}, en), 403, 'Forbidden');
    // A purchase past its limit tells nothing of its file, not even that a copy is current.
    await expectHeadRefused(path, 403, { 'if-none-match': '*' });
    expect((await get(world, path, {}, { 'if-none-match': '*' })).statusCode).toBe(403);
  });
});

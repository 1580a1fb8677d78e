import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkSigner } from '../../src/modules/downloads/download-link.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createDownloadWorld, downloads, get, LINK_SECRET, linkPath, upload, type DownloadItem, type DownloadWorld } from './helpers.js';

// The customer's downloads through HTTP: the operator uploads a bought e-book's files, the buyer
// lists them, gets a signed link and streams the file (whole or one range); other clients, altered
// and expired links are refused.

let world: DownloadWorld;
const epub = randomBytes(100_000);
const pdf = randomBytes(5_000);
let epubItem: DownloadItem;
let pdfItem: DownloadItem;
const en = { 'x-app-language': 'en' };

beforeAll(async () => {
  world = await createDownloadWorld({ DOWNLOAD_LIMIT: '50' });
  const [book] = world.ebooks;
  expect((await upload(world, book!.code, 'EPUB', epub, '?filename=Kevade%20(2024).epub')).statusCode).toBe(200);
  const uploaded = await upload(world, book!.code, 'PDF', pdf);
  expect(uploaded.statusCode, uploaded.body).toBe(200);
  expect(uploaded.json()).toMatchObject({
    productCode: book!.code,
    format: 'PDF',
    contentType: 'application/pdf',
    size: 5000,
    filename: `${book!.code}.pdf`,
  });
  const items = await downloads(world, world.customer);
  epubItem = items.find((item) => item.format === 'EPUB')!;
  pdfItem = items.find((item) => item.format === 'PDF')!;
});

afterAll(async () => {
  await world?.close();
});

describe('PUT /admin/product-files/{productCode}/{format}', () => {
  it('needs an operator key, an octet-stream body, a known product and format, a safe name and some bytes', async () => {
    const code = world.ebooks[0]!.code;
    const noKey = await world.t.app.inject({
      method: 'PUT',
      url: `/admin/product-files/${code}/EPUB`,
      headers: { 'content-type': 'application/octet-stream', ...en },
      payload: epub,
    });
    expectErrorBody(noKey, 401, 'Unauthorized');
    const json = await world.t.app.inject({
      method: 'PUT',
      url: `/admin/product-files/${code}/EPUB`,
      headers: { authorization: `Bearer ${world.operatorKey}`, 'content-type': 'application/json' },
      payload: { a: 1 },
    });
    expectErrorBody(json, 415, 'Unsupported Media Type');
    expectErrorBody(await upload(world, 'NO-SUCH', 'EPUB', epub), 404, 'Not Found');
    // A product code that tries to climb out of the store's folder is only an unknown code.
    expectErrorBody(await upload(world, '..%2F..%2Fetc', 'EPUB', epub), 404, 'Not Found');
    expectErrorBody(await upload(world, code, 'EXE', epub), 400, 'Bad Request');
    expect(expectFieldErrors(await upload(world, code, 'EPUB', epub, '?filename=..%2F..%2Fevil.epub'))).toEqual(['filename']);
    expect(expectFieldErrors(await upload(world, code, 'EPUB', epub, '?filename=a%22b.epub'))).toEqual(['filename']);
    expect(expectFieldErrors(await upload(world, code, 'EPUB', Buffer.alloc(0)))).toEqual(['body']);
  });

  it('keeps one file per format: a new upload replaces the stored file, and nothing is left of the refused ones', async () => {
    const code = world.ebooks[0]!.code;
    const again = await upload(world, code, 'PDF', pdf);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().id).toBe(Number(pdfItem.id.split('-')[1]));
    const productDir = join(world.fileDir, 'products', String(world.ebooks[0]!.id));
    expect(readdirSync(productDir).sort()).toEqual([
      expect.stringMatching(/^epub-[0-9a-f]{16}\.epub$/),
      expect.stringMatching(/^pdf-[0-9a-f]{16}\.pdf$/),
    ]);
  });
});

describe('GET /download', () => {
  it("lists the buyer's files with format, size and downloads used and allowed, paged, no-store", async () => {
    const response = await get(world, '/download?per-page=1', world.customer);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['x-pagination-total-count']).toBe('2');
    expect(response.headers['x-pagination-page-count']).toBe('2');
    expect(epubItem).toMatchObject({
      id: `${world.orderId}-${epubItem.id.split('-')[1]}`,
      source: 'ORDER',
      productId: world.ebooks[0]!.id,
      contentType: 'application/epub+zip',
      size: epub.length,
      downloadsAllowed: 50,
    });
    expect(pdfItem).toMatchObject({ format: 'PDF', size: pdf.length });
  });

  it('shows another client nothing, and a guest a 401', async () => {
    expect(await downloads(world, world.stranger)).toEqual([]);
    expectErrorBody(await get(world, '/download', {}, en), 401, 'Unauthorized');
  });
});

describe('GET /download/{id}/link', () => {
  it('gives a signed link that expires in minutes', async () => {
    const before = Date.now();
    const response = await get(world, `/download/${epubItem.id}/link`, world.customer);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const { url, expiresAt } = response.json() as { url: string; expiresAt: string };
    expect(url).toMatch(/\/direct-download\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    const lifetime = Date.parse(expiresAt) - before;
    expect(lifetime).toBeGreaterThan(4 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(5 * 60_000 + 1000);
  });

  it("is a 404 for another client's item, an unknown or malformed id, and a 401 for a guest", async () => {
    const other = await get(world, `/download/${epubItem.id}/link`, world.stranger, en);
    expectErrorBody(other, 404, 'Not Found');
    const unknown = await get(world, `/download/${world.orderId}-999999/link`, world.customer, en);
    expect(unknown.statusCode).toBe(404);
    for (const id of ['abc', '1-2-3', '0-1', `${world.orderId}`])
      expectErrorBody(await get(world, `/download/${id}/link`, world.customer), 404, 'Not Found');
    expectErrorBody(await get(world, `/download/${epubItem.id}/link`, {}), 401, 'Unauthorized');
  });
});

describe('GET /direct-download/{token}', () => {
  it('streams the whole file without a bearer, with its type, length, a safe name and Accept-Ranges', async () => {
    const response = await get(world, await linkPath(world, world.customer, epubItem.id), {}, { store: 'WEB2' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/epub+zip');
    expect(response.headers['content-length']).toBe(String(epub.length));
    expect(response.headers['content-disposition']).toBe('attachment; filename="Kevade (2024).epub"');
    expect(response.headers['accept-ranges']).toBe('bytes');
    expect(response.headers['cache-control']).toBe('private, no-store');
    expect(response.rawPayload.equals(epub)).toBe(true);
    const other = await get(world, await linkPath(world, world.customer, pdfItem.id));
    expect(other.headers['content-type']).toBe('application/pdf');
    expect(other.rawPayload.equals(pdf)).toBe(true);
  });

  it('answers one range as a 206 with Content-Range, in every shape', async () => {
    const path = await linkPath(world, world.customer, epubItem.id);
    const size = epub.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-9', 0, 9],
      ['bytes=100-199', 100, 199],
      ['bytes=99990-', 99_990, size - 1],
      ['bytes=-25', size - 25, size - 1],
      ['bytes=-200000', 0, size - 1],
      ['bytes=99000-500000', 99_000, size - 1],
      // The unit in any case; a last position or a suffix past Number.MAX_SAFE_INTEGER reaches the end.
      ['Bytes = 10-19', 10, 19],
      ['bytes=99000-18446744073709551616', 99_000, size - 1],
      ['bytes=-18446744073709551616', 0, size - 1],
    ];
    for (const [range, start, end] of cases) {
      const response = await get(world, path, {}, { range });
      expect(response.statusCode, range).toBe(206);
      expect(response.headers['content-range'], range).toBe(`bytes ${start}-${end}/${size}`);
      expect(response.headers['content-length'], range).toBe(String(end - start + 1));
      expect(response.headers['content-type']).toBe('application/epub+zip');
      expect(response.rawPayload.equals(epub.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it('answers 416 with the size for a range past the end, and the whole file for one it does not serve', async () => {
    const path = await linkPath(world, world.customer, epubItem.id);
    // A first position past Number.MAX_SAFE_INTEGER is past the end too (it was the whole file).
    const huge = ['bytes=18446744073709551616-', 'bytes=9007199254740992-9007199254740993', `bytes=${'9'.repeat(400)}-`];
    for (const range of [`bytes=${epub.length}-`, 'bytes=200000-200010', 'bytes=-0', ...huge]) {
      const response = await get(world, path, {}, { range, ...en });
      expectErrorBody(response, 416, 'Range Not Satisfiable');
      expect(response.headers['content-range']).toBe(`bytes */${epub.length}`);
    }
    // Each answers the whole file: a link serves it DOWNLOAD_LINK_BUDGET (3) times, so each has its own link.
    for (const range of ['bytes=5-2', 'bytes=0-1,5-6', 'items=0-1', 'bytes=x-y', 'bytes=1 0-20', 'bytes=--5']) {
      const response = await get(world, await linkPath(world, world.customer, epubItem.id), {}, { range });
      expect(response.statusCode, range).toBe(200);
      expect(response.rawPayload.length, range).toBe(epub.length);
    }
  });

  it("answers the whole file to a range sent with an If-Range that is not the file's ETag", async () => {
    // A validator a resuming client kept from another server, or from a file since replaced, is not the
    // current one, and RFC 9110 §13.1.5 says to send it all (resume-and-head.test.ts has the matching one).
    for (const ifRange of ['"v1"', 'Wed, 21 Oct 2026 07:28:00 GMT']) {
      const response = await get(
        world,
        await linkPath(world, world.customer, epubItem.id),
        {},
        { range: 'bytes=100-199', 'if-range': ifRange },
      );
      expect(response.statusCode, ifRange).toBe(200);
      expect(response.headers['content-range'], ifRange).toBeUndefined();
      expect(response.headers['content-length'], ifRange).toBe(String(epub.length));
      expect(response.rawPayload.equals(epub), ifRange).toBe(true);
    }
    // If-Range without a Range is ignored: the whole file as always.
    const plain = await get(world, await linkPath(world, world.customer, epubItem.id), {}, { 'if-range': '"v1"' });
    expect(plain.statusCode).toBe(200);
    expect(plain.rawPayload.equals(epub)).toBe(true);
  });

  it('is a 403 for an altered token, a token signed with another secret, and garbage', async () => {
    const path = await linkPath(world, world.customer, epubItem.id);
    const token = path.split('/').pop()!;
    const [payload, mac] = token.split('.') as [string, string];
    const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
    // The PDF's file under the EPUB's signature.
    const otherFile = Buffer.from(
      Buffer.from(payload, 'base64url')
        .toString()
        .replace(/\.(\d+)\.(\d+)\.(\d+)$/, `.$1.${pdfItem.id.split('-')[1]}.$3`),
    ).toString('base64url');
    const forged = linkSigner('another-secret-another-secret-another-secret').sign({
      orderId: world.orderId,
      fileId: Number(epubItem.id.split('-')[1]),
      clientAccountId: world.customer.clientAccountId,
      expiresAt: Date.now() + 60_000,
    });
    for (const bad of [
      `${flip(payload, 5)}.${mac}`,
      `${payload}.${flip(mac, 3)}`,
      `${otherFile}.${mac}`,
      forged,
      'garbage',
      `${payload}.`,
    ]) {
      expectErrorBody(await get(world, `/direct-download/${bad}`, {}, en), 403, 'Forbidden');
    }
  });

  it('takes the token of a link with many-digit ids (no 414 from the router)', async () => {
    const link = { orderId: 123_456_789, fileId: 987_654_321, clientAccountId: 123_456_789, expiresAt: Date.now() + 60_000 };
    const token = linkSigner(LINK_SECRET).sign(link);
    expect(token.length).toBeGreaterThan(100);
    // Signed right, but no such entitlement.
    expectErrorBody(await get(world, `/direct-download/${token}`, {}, en), 403, 'Forbidden');
  });

  it('is a 403 once the link has expired', async () => {
    const signer = linkSigner(LINK_SECRET);
    const link = { orderId: world.orderId, fileId: Number(epubItem.id.split('-')[1]), clientAccountId: world.customer.clientAccountId };
    const expired = signer.sign({ ...link, expiresAt: Date.now() - 1 });
    const response = await get(world, `/direct-download/${expired}`, {}, en);
    expectErrorBody(response, 403, 'Forbidden');
    expect(response.json().message).toContain('expired');
    // The same link, still valid, works: only the expiry differs.
    expect((await get(world, `/direct-download/${signer.sign({ ...link, expiresAt: Date.now() + 60_000 })}`)).statusCode).toBe(200);
  });

  it("is a 403 with another client's bearer, works with the owner's, and a bad bearer is a 401", async () => {
    const path = await linkPath(world, world.customer, epubItem.id);
    const other = await get(world, path, world.stranger, en);
    expectErrorBody(other, 403, 'Forbidden');
    expect(other.json().message).toContain('another customer');
    expect((await get(world, path, world.customer)).statusCode).toBe(200);
    expectErrorBody(await get(world, path, { bearer: 'not-a-token' }), 401, 'Unauthorized');
    // A link signed for the stranger over the customer's entitlement is no entitlement of the stranger's.
    const stolen = linkSigner(LINK_SECRET).sign({
      orderId: world.orderId,
      fileId: Number(epubItem.id.split('-')[1]),
      clientAccountId: world.stranger.clientAccountId,
      expiresAt: Date.now() + 60_000,
    });
    expectErrorBody(await get(world, `/direct-download/${stolen}`, world.stranger), 403, 'Forbidden');
  });

  it('counts a link once, at its first request, whatever range it asks for', async () => {
    const usedBefore = (await downloads(world, world.customer)).find((item) => item.id === epubItem.id)!.downloadsUsed;
    const path = await linkPath(world, world.customer, epubItem.id);
    expect((await get(world, path, {}, { range: 'bytes=500-' })).statusCode).toBe(206);
    expect((await get(world, path, {}, { range: 'bytes=0-499' })).statusCode).toBe(206);
    expect((await get(world, path)).statusCode).toBe(200);
    const after = await downloads(world, world.customer);
    // Every format of the purchase shares the count.
    expect(after.find((item) => item.id === epubItem.id)!.downloadsUsed).toBe(usedBefore + 1);
    expect(after.find((item) => item.id === pdfItem.id)!.downloadsUsed).toBe(usedBefore + 1);
    // An unused link counts nothing; neither does a 416.
    await linkPath(world, world.customer, epubItem.id);
    for (const range of ['bytes=999999-', 'bytes=18446744073709551616-']) {
      expect((await get(world, await linkPath(world, world.customer, epubItem.id), {}, { range })).statusCode, range).toBe(416);
    }
    expect((await downloads(world, world.customer)).find((item) => item.id === epubItem.id)!.downloadsUsed).toBe(usedBefore + 1);
  });
});

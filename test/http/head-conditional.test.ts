import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.js';
import { createEngine, foldAllQueued } from '../../src/modules/search/index.js';
import { createCustomer } from '../helpers/customers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// RFC 9110 9.3.2: a HEAD is the GET without the body, its conditionals included. A client that checks
// whether its copy is current with a HEAD and If-None-Match gets the 304 a GET would give, and a
// HEAD's Content-Length is the length of the body the GET sends.

let t: TestApp;
let customer: string;

/** Catalogue, search, blog and content answers that carry an ETag, on the demo shop. */
const URLS = [
  '/product/1',
  '/product',
  '/product?sort=price&per-page=5',
  '/category',
  '/product/search?q=raamat',
  '/content-page/meist',
  '/blog',
  '/blog/sugise-lugemisnimekiri',
  '/shop',
];

beforeAll(async () => {
  t = await createTestApp();
  await seedDemo(t.database, { now: Date.now() });
  await foldAllQueued(t.database, createEngine(t.database));
  customer = `Bearer ${(await createCustomer(t.database.db)).token}`;
}, 180_000);
afterAll(() => t?.close());

const request = (method: 'GET' | 'HEAD', url: string, headers: Record<string, string>) =>
  t.app.inject({ method, url, headers: { store: 'WEB', ...headers } });

describe('a HEAD of a cacheable catalogue or content answer', () => {
  for (const url of URLS) {
    it(`${url}: answers the GET's ETag and length, and 304 to If-None-Match as the GET does`, async () => {
      for (const authorization of [undefined, customer]) {
        const who: Record<string, string> = authorization === undefined ? {} : { authorization };
        const get = await request('GET', url, who);
        expect(get.statusCode, get.body).toBe(200);
        const etag = get.headers.etag as string;
        expect(etag, `${url} ETag`).toBeTruthy();

        const head = await request('HEAD', url, who);
        expect(head.statusCode).toBe(200);
        expect(head.body).toBe('');
        expect(head.headers.etag, `${url} HEAD ETag`).toBe(etag);
        expect(head.headers['content-length']).toBe(String(get.rawPayload.length));
        expect(head.headers['cache-control']).toBe(get.headers['cache-control']);

        const conditionalGet = await request('GET', url, { ...who, 'if-none-match': etag });
        expect(conditionalGet.statusCode).toBe(304);
        const conditionalHead = await request('HEAD', url, { ...who, 'if-none-match': etag });
        expect(conditionalHead.statusCode, `${url} HEAD If-None-Match`).toBe(304);
        expect(conditionalHead.body).toBe('');
        expect(conditionalHead.headers.etag).toBe(etag);
        expect(conditionalHead.headers['content-length']).toBe(conditionalGet.headers['content-length']);
        expect(conditionalHead.headers['content-type']).toBe(conditionalGet.headers['content-type']);

        // A tag that is not current: the whole answer, as to a GET.
        const stale = await request('HEAD', url, { ...who, 'if-none-match': '"stale"' });
        expect(stale.statusCode).toBe(200);
        expect(stale.headers['content-length']).toBe(String(get.rawPayload.length));
      }
    });
  }
});

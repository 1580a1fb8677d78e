import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, operatorKey } from './helpers.js';

// What one anonymous client may repeat on the redirect and QR code reads. A day's window: the
// token buckets refill by nothing worth counting while a test runs.
const PER_REDIRECT = 3;
const PER_ADDRESS = 5;
const QR_CODES = 3;

let t: TestApp;
let key = '';

beforeAll(async () => {
  t = await createTestApp({
    env: {
      REDIRECT_HIT_CAP_PER_IP_REDIRECT: `${PER_REDIRECT}/1d`,
      REDIRECT_HIT_CAP_PER_IP: `${PER_ADDRESS}/1d`,
      QR_CODE_RATE_LIMIT_PER_IP: `${QR_CODES}/1d`,
    },
  });
  key = await operatorKey(t);
  await createProduct(t.database.db, { code: 'QR-BOOK' });
  const res = await importContent(t, 'redirects', [
    { code: 'ONE', store: 'WEB', path: '/vana/yks', target: '/uus/yks' },
    { code: 'TWO', store: 'WEB', path: '/vana/kaks', target: '/uus/kaks' },
  ]);
  expect(res.json(), res.body).toMatchObject({ errorCount: 0 });
});
afterAll(() => t.close());

let addresses = 0;
const nextIp = () => `10.3.0.${++addresses}`;
const get = (url: string, ip: string) => t.app.inject({ method: 'GET', url, remoteAddress: ip });
const hits = async (code: string) =>
  (
    (
      await t.app.inject({ method: 'GET', url: `/admin/content/redirects/${code}`, headers: { authorization: `Bearer ${key}` } })
    ).json() as {
      hits: number;
    }
  ).hits;

describe('GET /external-url repeated by one address', () => {
  // A shopper who follows an old link (or scans a printed redirect QR code) twice must be sent on
  // both times: the lookup is never refused. What one address repeats is not counted past the caps,
  // so nobody can inflate an old URL's hits from one machine.
  it('keeps answering, stops counting one address past its cap per redirect, and counts another address', async () => {
    const ip = nextIp();
    for (let i = 0; i < PER_REDIRECT + 3; i += 1) {
      const res = await get('/external-url?path=/vana/yks', ip);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ target: '/uus/yks' });
    }
    expect(await hits('ONE')).toBe(PER_REDIRECT);
    expect((await get('/external-url?path=/vana/yks', nextIp())).statusCode).toBe(200);
    expect(await hits('ONE')).toBe(PER_REDIRECT + 1);
  });

  it('counts one address at most its cap over all redirects', async () => {
    const ip = nextIp();
    const before = { one: await hits('ONE'), two: await hits('TWO') };
    for (let i = 0; i < PER_REDIRECT; i += 1) expect((await get('/external-url?path=/vana/yks', ip)).statusCode).toBe(200);
    for (let i = 0; i < PER_REDIRECT; i += 1) expect((await get('/external-url?path=/vana/kaks', ip)).statusCode).toBe(200);
    expect((await hits('ONE')) - before.one + (await hits('TWO')) - before.two).toBe(PER_ADDRESS);
  });
});

describe('GET /qr-code/{code} repeated by one address', () => {
  // Each answer draws an SVG on the event loop (~0.5 ms for a product's URL, ~10 ms for a long
  // redirect path). A shopper scanning a printed code never calls this route (the code holds the
  // front-end's URL); a page showing the image does, once.
  it('answers 429 with Retry-After past the limit, and still serves another address', async () => {
    const ip = nextIp();
    for (let i = 0; i < QR_CODES; i += 1) expect((await get('/qr-code/product-QR-BOOK', ip)).statusCode).toBe(200);
    const limited = await get('/qr-code/product-QR-BOOK', ip);
    expectErrorBody(limited, 429, 'Too Many Requests');
    expect(limited.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    // Unknown codes cost a read each: they count alike.
    expectErrorBody(await get('/qr-code/product-NOPE', ip), 429, 'Too Many Requests');
    expect((await get('/qr-code/product-QR-BOOK', nextIp())).statusCode).toBe(200);
  });
});

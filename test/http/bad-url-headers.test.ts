import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A URL Fastify cannot route (a percent-encoding that is not UTF-8, a path parameter over its length)
// is answered by frameworkErrors before any hook runs. That answer lacked what the hooks give every
// other one: no action-time (a convention of the spec), no Content-Language, the message in the
// default language whatever x-app-language asked, and no CORS headers, so a browser on an allowed
// origin could not read the 400 at all (the fetch failed as a CORS error).

const ORIGIN = 'https://shop.example';
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { CORS_ORIGINS: ORIGIN } });
});
afterAll(() => t?.close());

const headers = { store: 'WEB', origin: ORIGIN, 'x-app-language': 'en' };
/** Headers whose value is the answer's own (its length, its time of sending). */
const OWN = new Set(['content-length', 'date', 'connection', 'keep-alive']);

describe('a URL that cannot be routed', () => {
  it.each([
    ['a percent-encoding that is not UTF-8', 400, '/content-page/%FF'],
    ['a path parameter over its length', 414, `/content-page/${'x'.repeat(500)}`],
  ])('is answered with the headers of every other answer: %s', async (_, status, url) => {
    const nowSeconds = Math.floor(Date.now() / 1000);
    const response = await t.app.inject({ method: 'GET', url, headers });
    expect(response.statusCode).toBe(status);
    expectErrorBody(response, status, response.json().name);
    expect(response.json().message).toBe('The request URL is malformed.');
    expect(Number(response.headers['action-time'])).toBeGreaterThanOrEqual(nowSeconds);
    expect(response.headers['content-language']).toBe('en');
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    // Whatever an unknown route's 404 (which the hooks did answer) carries, this carries too.
    const unknown = await t.app.inject({ method: 'GET', url: '/no/such/route', headers });
    const expected = Object.keys(unknown.headers).filter((name) => !OWN.has(name));
    expect(expected.filter((name) => response.headers[name] === undefined)).toEqual([]);
  });

  it('has no Access-Control-Allow-Origin for an origin that is not allowed', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/content-page/%FF',
      headers: { ...headers, origin: 'https://evil.example' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

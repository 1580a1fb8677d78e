import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { BASE_PATH: '/api/v1' } });
});
afterAll(() => t.close());

describe('BASE_PATH', () => {
  it('serves the main API under the prefix and nothing at the root', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/site/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/site/health' })).statusCode).toBe(404);
  });

  it('keeps the prefix in paging links', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/v1/country?per-page=10' });
    expect(response.headers.link).toContain('</api/v1/country?page=2&per-page=10>; rel="next"');
  });

  it('serves the docs under the prefix with the prefix as the server URL', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.servers).toEqual([{ url: '/api/v1' }]);
    expect(Object.keys(doc.paths)).toContain('/country');
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/docs/' })).statusCode).toBe(200);
  });
});

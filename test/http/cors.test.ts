import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ env: { CORS_ORIGINS: 'https://shop.example, https://m.shop.example' } });
});
afterAll(() => t.close());

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

describe('CORS', () => {
  it('answers a preflight from an allowed origin without authentication', async () => {
    const response = await t.app.inject({
      method: 'OPTIONS',
      url: '/app/config',
      headers: {
        origin: 'https://m.shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, store, x-app-language, content-type',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('https://m.shop.example');
    expect(String(response.headers['access-control-allow-methods']).split(/,\s*/)).toEqual(METHODS);
    expect(response.headers['access-control-allow-headers']).toContain('authorization');
    expect(response.headers['action-time']).toBeDefined();
  });

  it('does not allow an origin that is not configured', async () => {
    const response = await t.app.inject({
      method: 'OPTIONS',
      url: '/app/config',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers OPTIONS on every route, unknown ones and ones without Origin included', async () => {
    for (const url of ['/country', '/site/health', '/anything/at/all']) {
      const response = await t.app.inject({ method: 'OPTIONS', url });
      expect(response.statusCode, url).toBe(204);
    }
  });

  it('exposes the convention headers to browsers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/country', headers: { origin: 'https://shop.example' } });
    expect(response.headers['access-control-allow-origin']).toBe('https://shop.example');
    const exposed = String(response.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
    for (const header of [
      'action-time',
      'is_active',
      'available_languages',
      'link',
      'x-pagination-current-page',
      'x-pagination-page-count',
      'x-pagination-per-page',
      'x-pagination-total-count',
    ]) {
      expect(exposed).toContain(header);
    }
  });
});

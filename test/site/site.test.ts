import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('site helpers', () => {
  it('health answers 200 when the database is reachable', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/site/health' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', database: 'ok' });
  });

  it('version names the build and its newest migration', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/site/version' });
    expect(response.json()).toEqual({
      name: 'storefront-service',
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      schemaVersion: Object.keys(migrations).sort().at(-1),
    });
  });

  // A CDN or proxy in front (CloudFront keeps an answer without Cache-Control for a day by default)
  // that kept a health answer showed a monitor the service up through an outage, and a version
  // answer the build before a deploy: they said nothing about caching.
  it('health and version answers are never stored by a cache', async () => {
    for (const url of ['/site/health', '/site/version']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('health answers 503 when the database is gone', async () => {
    const broken = await createTestApp();
    try {
      await broken.database.close();
      const response = await broken.app.inject({ method: 'GET', url: '/site/health' });
      const body = expectErrorBody(response, 503, 'Service Unavailable');
      expect(body.message).not.toMatch(/sqlite|pool|closed/i);
      // A down answer kept by a cache would outlast the outage.
      expect(response.headers['cache-control']).toBe('no-store');
    } finally {
      await broken.app.close();
    }
  });
});

describe('API documentation', () => {
  it('serves OpenAPI 3 with every route, its parameters and its response headers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/app/config', '/country', '/site/health', '/site/version', '/auth/login', '/auth/register']),
    );
    const country = doc.paths['/country'].get;
    const parameters = country.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`);
    expect(parameters).toEqual(expect.arrayContaining(['query:page', 'query:per-page', 'header:store', 'header:x-app-language']));
    expect(Object.keys(country.responses['200'].headers)).toEqual(
      expect.arrayContaining(['action-time', 'is_active', 'available_languages', 'x-pagination-total-count', 'link']),
    );
    expect(Object.keys(country.responses)).toEqual(expect.arrayContaining(['200', '400', '423']));
    for (const [path, item] of Object.entries<Record<string, { responses: Record<string, unknown> }>>(doc.paths)) {
      for (const operation of Object.values(item)) {
        // Every operation documents its success: 200, or 201/202/204 where it creates, accepts or
        // deletes, or the redirect that a browser-facing return route answers with.
        expect(
          Object.keys(operation.responses).some((status) => /^(2\d\d|30[23])$/.test(status)),
          path,
        ).toBe(true);
      }
    }
  });

  it('serves Swagger UI at /docs', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });
});

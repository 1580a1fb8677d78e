import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { exportUser } from '../data-export/fixtures.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Finding 11 of issue 12: the API documents can be switched off or put behind the operator key
// (API_DOCS), and the operators' routes stay out of the document anyone may read.

/** Every URL that serves the main document or its UI. */
const MAIN_DOCS = ['/openapi.json', '/docs', '/docs/', '/docs/json', '/docs/yaml', '/docs/static/swagger-ui.css'];
const ADMIN_PATH = '/admin/import/{kind}';

const get = (t: TestApp, url: string, authorization?: string) =>
  t.app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });

describe('API_DOCS=public (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it("serves the documents to anyone, without the operators' routes", async () => {
    for (const url of MAIN_DOCS) expect((await get(t, url)).statusCode, url).toBeLessThan(400);
    for (const url of ['/openapi.json', '/docs/json']) {
      const doc = (await get(t, url)).json();
      expect(Object.keys(doc.paths), url).toContain('/auth/login');
      expect(
        Object.keys(doc.paths).filter((path) => path.startsWith('/admin')),
        url,
      ).toEqual([]);
    }
    expect((await get(t, '/docs/yaml')).body).not.toContain('/admin/');
    expect((await get(t, '/export/openapi.json')).statusCode).toBe(200);
  });

  it('lists on every operation the errors that any route taking what it takes can answer (http/schemas.ts)', async () => {
    const doc = (await get(t, '/openapi.json')).json() as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses);
    // Nothing to refuse but a failure.
    expect(statuses('/site/version', 'get')).toEqual(['200', '500']);
    // A path parameter (400, 414), a method with a body (413, 415), a store (400, 423); its own 401 and 204.
    expect(statuses('/wishlist/{productId}', 'delete')).toEqual(['204', '400', '401', '413', '414', '415', '423', '500']);
    // A JSON body: 422.
    expect(statuses('/bank/payment-result', 'post')).toEqual(expect.arrayContaining(['400', '413', '415', '422', '500']));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item))
        expect(Object.keys(operation.responses), `${method} ${path}`).toContain('500');
    }
  });
});

describe('API_DOCS=operator', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { API_DOCS: 'operator' } });
    key = await createApiKey(t.database.db, 'docs-reader', Date.now());
  });
  afterAll(() => t.close());

  it('refuses every document URL without a valid operator key', async () => {
    const customer = await createCustomer(t.database.db);
    for (const url of MAIN_DOCS) {
      for (const authorization of [undefined, 'Bearer not-a-key', `Bearer ${customer.token}`, 'Basic eDp5']) {
        const response = await get(t, url, authorization);
        expectErrorBody(response, 401, 'Unauthorized');
        expect(response.headers['www-authenticate'], url).toMatch(/^Bearer realm="storefront-admin"/);
      }
    }
  });

  it("serves them to an operator, with the operators' routes, and never to a shared cache", async () => {
    for (const url of MAIN_DOCS) expect((await get(t, url, `Bearer ${key}`)).statusCode, url).toBeLessThan(400);
    const response = await get(t, '/openapi.json', `Bearer ${key}`);
    expect(response.headers['cache-control']).toBe('no-store');
    const operation = response.json().paths[ADMIN_PATH].post;
    expect(Object.keys(operation.requestBody.content)).toEqual(['application/x-ndjson']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '409', '413', '415']));
  });

  it('serves the data-export document to its export users only, allowlist included', async () => {
    const partner = await exportUser(t.database.db, ['10.9.9.0/24']);
    const response = await get(t, '/export/openapi.json');
    expectErrorBody(response, 401, 'Unauthorized');
    expect(response.headers['www-authenticate']).toMatch(/^Basic /);
    const fromPartner = await t.app.inject({
      method: 'GET',
      url: '/export/openapi.json',
      headers: { authorization: partner.authorization },
      remoteAddress: '10.9.9.5',
    });
    expect(fromPartner.statusCode).toBe(200);
    expect(Object.keys(fromPartner.json().paths)).toContain('/shop');
    const elsewhere = await get(t, '/export/openapi.json', partner.authorization);
    expectErrorBody(elsewhere, 403, 'Forbidden');
  });
});

describe('API_DOCS=off', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { API_DOCS: 'off' } });
    key = await createApiKey(t.database.db, 'docs-reader', Date.now());
  });
  afterAll(() => t.close());

  it('serves no document to anyone, as if the paths did not exist', async () => {
    const partner = await exportUser(t.database.db);
    for (const url of MAIN_DOCS) {
      expectErrorBody(await get(t, url), 404, 'Not Found');
      expectErrorBody(await get(t, url, `Bearer ${key}`), 404, 'Not Found');
    }
    expectErrorBody(await get(t, '/export/openapi.json', partner.authorization), 404, 'Not Found');
  });

  it('leaves the API itself as it was', async () => {
    expect((await get(t, '/app/config')).statusCode).toBe(200);
    const partner = await exportUser(t.database.db);
    expect((await get(t, '/export/shop', partner.authorization)).statusCode).toBe(200);
    const importResponse = await t.app.inject({
      method: 'POST',
      url: '/admin/import/publishers',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expectErrorBody(importResponse, 401, 'Unauthorized');
  });
});

describe('behind BASE_PATH', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { API_DOCS: 'operator', BASE_PATH: '/api' } });
  });
  afterAll(() => t.close());

  it('guards the documents under the prefix too', async () => {
    for (const url of MAIN_DOCS) expectErrorBody(await get(t, `/api${url}`), 401, 'Unauthorized');
    const key = await createApiKey(t.database.db, 'docs-reader', Date.now());
    const doc = (await get(t, '/api/openapi.json', `Bearer ${key}`)).json();
    expect(Object.keys(doc.paths)).toContain(ADMIN_PATH);
  });
});

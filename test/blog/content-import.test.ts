import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShop } from '../helpers/catalogue.js';
import { expectErrorBody, expectFieldErrors } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, operatorKey } from './helpers.js';

let t: TestApp;
let key = '';

beforeAll(async () => {
  t = await createTestApp();
  key = await operatorKey(t);
  await createShop(t.database.db, { code: 'VIRU', name: 'Viru' });
});
afterAll(() => t.close());

const post = { code: 'P1', store: 'WEB', language: 'et', slug: 'esimene', title: 'Esimene', body: '<p>x</p>', publishedAt: '2026-01-01' };

describe('content imports', () => {
  it('upserts by code idempotently', async () => {
    expect((await importContent(t, 'blog-posts', [post])).json()).toMatchObject({ outcomes: { created: 1 }, errorCount: 0 });
    expect((await importContent(t, 'blog-posts', [post])).json()).toMatchObject({ outcomes: { unchanged: 1 } });
    expect((await importContent(t, 'blog-posts', [{ ...post, title: 'Uus', tags: ['a'] }])).json()).toMatchObject({
      outcomes: { updated: 1 },
    });
    expect((await importContent(t, 'blog-posts', [{ ...post, title: 'Uus', tags: ['a'] }])).json()).toMatchObject({
      outcomes: { unchanged: 1 },
    });
    const schedule = { shop: 'VIRU', weekly: [{ weekday: 1, opens: '10:00', closes: '18:00' }] };
    expect((await importContent(t, 'shop-schedules', [schedule])).json()).toMatchObject({ outcomes: { updated: 1 } });
    expect((await importContent(t, 'shop-schedules', [schedule])).json()).toMatchObject({ outcomes: { unchanged: 1 } });
  });

  it('reports bad lines by number and applies the good ones', async () => {
    const res = await importContent(t, 'blog-posts', [
      { ...post, code: 'OK', slug: 'ok' },
      '{not json',
      { ...post, code: 'BADLANG', slug: 'b1', language: 'fi' },
      { ...post, code: 'TAKEN', slug: 'esimene' },
      { ...post, code: 'NOCAT', slug: 'b2', category: 'NOPE' },
      { ...post, code: 'WINDOW', slug: 'b3', visibleFrom: '2026-02-01', visibleTo: '2026-01-01' },
      { ...post, code: 'DATE', slug: 'b4', publishedAt: '2026-02-30' },
      { ...post, code: 'SLUG', slug: 'Not A Slug' },
    ]);
    const body = res.json();
    expect(body.outcomes).toEqual({ created: 1 });
    expect(body.errors.map((error: { line: number }) => error.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(body.errors[2].message).toMatch(/already used by "P1"/);
    const other = await importContent(t, 'redirects', [
      { code: 'R1', store: 'WEB', path: 'no-slash', target: '/x' },
      { code: 'R2', store: 'WEB', path: '/a', target: '/b', status: 307 },
      { code: 'R3', store: 'WEB', path: '/a', target: '/a' },
    ]);
    expect(other.json().errors.map((error: { line: number }) => error.line)).toEqual([1, 2, 3]);
    const schedules = await importContent(t, 'shop-schedules', [
      { shop: 'NOPE', weekly: [] },
      { shop: 'VIRU', weekly: [{ weekday: 1, opens: '18:00', closes: '10:00' }] },
      { shop: 'VIRU', weekly: [], exceptions: [{ date: '2026-12-24', closed: true, opens: '10:00', names: { et: 'x' } }] },
      { shop: 'VIRU', weekly: [{ weekday: 8, opens: '10:00', closes: '11:00' }] },
    ]);
    expect(schedules.json().errors.map((error: { line: number }) => error.line)).toEqual([1, 2, 3, 4]);
  });
});

describe('PUT and DELETE /admin/content/:kind/:code', () => {
  const auth = () => ({ authorization: `Bearer ${key}` });

  it('creates, updates and deletes one record', async () => {
    const { code: _code, ...body } = { ...post, slug: 'admin-post' };
    let res = await t.app.inject({ method: 'PUT', url: '/admin/content/blog-posts/ADMIN', headers: auth(), payload: body });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ kind: 'blog-posts', code: 'ADMIN', outcome: 'created' });
    res = await t.app.inject({
      method: 'PUT',
      url: '/admin/content/blog-posts/ADMIN',
      headers: auth(),
      payload: { ...body, body: '<script>x</script><p>y</p>' },
    });
    expect(res.json().outcome).toBe('updated');
    expect((await t.app.inject({ method: 'GET', url: '/blog/admin-post' })).json().body).toBe('<p>y</p>');
    res = await t.app.inject({ method: 'DELETE', url: '/admin/content/blog-posts/ADMIN', headers: auth() });
    expect(res.json().outcome).toBe('deleted');
    expectErrorBody(await t.app.inject({ method: 'GET', url: '/blog/admin-post' }), 404, 'Not Found');
    expectErrorBody(await t.app.inject({ method: 'DELETE', url: '/admin/content/blog-posts/ADMIN', headers: auth() }), 404, 'Not Found');
  });

  it('refuses bad input, unknown kinds and callers without an operator key', async () => {
    const res = await t.app.inject({ method: 'PUT', url: '/admin/content/news/N1', headers: auth(), payload: { store: 'WEB' } });
    expect(res.statusCode).toBe(422);
    expect(expectFieldErrors(res).length).toBeGreaterThan(0);
    expectErrorBody(await t.app.inject({ method: 'PUT', url: '/admin/content/pages/X', headers: auth(), payload: {} }), 404, 'Not Found');
    expectErrorBody(await t.app.inject({ method: 'PUT', url: '/admin/content/news/N1', payload: {} }), 401, 'Unauthorized');
    expectErrorBody(await t.app.inject({ method: 'DELETE', url: '/admin/content/news/N1' }), 401, 'Unauthorized');
    const text = await t.app.inject({
      method: 'PUT',
      url: '/admin/content/news/N1',
      headers: { ...auth(), 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.statusCode).toBe(415);
  });
});

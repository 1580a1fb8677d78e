import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let total: number;
beforeAll(async () => {
  t = await createTestApp();
  const row = await t.database.db
    .selectFrom('country')
    .select((eb) => eb.fn.countAll().as('n'))
    .executeTakeFirstOrThrow();
  total = Number(row.n);
});
afterAll(() => t.close());

const get = (query: string) => t.app.inject({ method: 'GET', url: `/country${query}`, headers: { 'x-app-language': 'en' } });

function links(header: string | string[] | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const part of String(header).split(', ')) {
    const match = /^<([^>]+)>; rel="(\w+)"$/.exec(part);
    if (match) result[match[2]!] = match[1]!;
  }
  return result;
}

describe('paging', () => {
  it('defaults to page 1 of 20 with the pagination headers', async () => {
    const response = await get('');
    expect(response.json()).toHaveLength(20);
    expect(response.headers['x-pagination-current-page']).toBe('1');
    expect(response.headers['x-pagination-per-page']).toBe('20');
    expect(response.headers['x-pagination-total-count']).toBe(String(total));
    expect(response.headers['x-pagination-page-count']).toBe(String(Math.ceil(total / 20)));
  });

  it('walks pages without gaps or repeats', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= Math.ceil(total / 7); page += 1) {
      seen.push(...(await get(`?page=${page}&per-page=7`)).json().map((c: { code: string }) => c.code));
    }
    expect(seen).toHaveLength(total);
    expect(new Set(seen).size).toBe(total);
  });

  it('links self, first, prev, next and last, keeping other parameters', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/country?page=2&per-page=5&foo=bar' });
    const rel = links(response.headers.link);
    const last = Math.ceil(total / 5);
    expect(rel).toEqual({
      self: '/country?foo=bar&page=2&per-page=5',
      first: '/country?foo=bar&page=1&per-page=5',
      prev: '/country?foo=bar&page=1&per-page=5',
      next: '/country?foo=bar&page=3&per-page=5',
      last: `/country?foo=bar&page=${last}&per-page=5`,
    });
  });

  it('has no prev on the first page and no next on the last', async () => {
    const first = links((await get('?per-page=5')).headers.link);
    expect(first.prev).toBeUndefined();
    const lastPage = Math.ceil(total / 5);
    const last = links((await get(`?per-page=5&page=${lastPage}`)).headers.link);
    expect(last.next).toBeUndefined();
  });

  it('leaves the Link header out when the other parameters would make it too long', async () => {
    // Five links of a 3,000-character parameter made a 15 KB header: past Node's client limit and a proxy's buffer.
    const long = await get(`?page=2&per-page=5&pad=${'x'.repeat(3000)}`);
    expect(long.statusCode).toBe(200);
    expect(long.headers.link).toBeUndefined();
    expect(long.headers['x-pagination-current-page']).toBe('2');
    expect(long.headers['x-pagination-page-count']).toBe(String(Math.ceil(total / 5)));
    const short = await get(`?page=2&per-page=5&pad=${'x'.repeat(100)}`);
    expect(links(short.headers.link).next).toBe(`/country?pad=${'x'.repeat(100)}&page=3&per-page=5`);
  });

  it('caps per-page at 100', async () => {
    const response = await get('?per-page=1000');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-pagination-per-page']).toBe('100');
  });

  it('answers an empty array past the end', async () => {
    const response = await get('?page=999');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
    expect(response.headers['x-pagination-total-count']).toBe(String(total));
  });

  it.each([
    'page=abc',
    'page=0',
    'page=-1',
    'page=1.5',
    'page=',
    'page=1&page=2',
    'page=99999999999',
    'per-page=0',
    'per-page=x',
    'per-page=-5',
  ])('refuses %s with a 400', async (query) => {
    const body = expectErrorBody(await get(`?${query}`), 400, 'Bad Request');
    expect(body.message).toMatch(/page/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { changeStore } from '../../src/modules/store/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('action-time', () => {
  it.each([
    ['a success', 'GET', '/app/config', {}],
    ['an unknown route', 'GET', '/no/such/route', {}],
    ['an unknown store', 'GET', '/app/config', { store: 'NOPE' }],
    ['an OPTIONS request', 'OPTIONS', '/app/config', {}],
    ['a malformed page', 'GET', '/country?page=abc', {}],
  ] as const)('is the Unix time in seconds on %s', async (_, method, url, headers) => {
    const before = nowSeconds();
    const response = await t.app.inject({ method, url, headers });
    const value = response.headers['action-time'];
    expect(value).toMatch(/^\d{10}$/);
    expect(Number(value)).toBeGreaterThanOrEqual(before);
    expect(Number(value)).toBeLessThanOrEqual(nowSeconds());
  });
});

describe('x-request-id', () => {
  it('is generated when the caller sends none', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/site/health' });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });

  it('keeps a sane id from the caller and replaces an unsafe one', async () => {
    const kept = await t.app.inject({ method: 'GET', url: '/site/health', headers: { 'x-request-id': 'edge-42.abc' } });
    expect(kept.headers['x-request-id']).toBe('edge-42.abc');
    const replaced = await t.app.inject({
      method: 'GET',
      url: '/site/health',
      headers: { 'x-request-id': 'bad id\twith spaces' + 'x'.repeat(200) },
    });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-z]+$/);
  });
});

describe('store header', () => {
  it('defaults to DEFAULT_STORE when absent', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/app/config' });
    expect(response.statusCode).toBe(200);
    expect(response.json().store).toBe('WEB');
  });

  it('selects WEB2', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/app/config', headers: { store: 'WEB2' } });
    expect(response.json()).toMatchObject({ store: 'WEB2', name: 'Outlet' });
  });

  it.each(['NOPE', 'web', '', 'WEB '.repeat(100)])('answers 400 in the error shape for %j', async (store) => {
    const response = await t.app.inject({ method: 'GET', url: '/app/config', headers: { store } });
    const body = expectErrorBody(response, 400, 'Bad Request');
    expect(body.message).toContain('WEB, WEB2');
  });

  it('is ignored by routes that do not depend on a store', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/site/health', headers: { store: 'NOPE' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers.is_active).toBeUndefined();
  });
});

describe('store state headers', () => {
  it('carry is_active and available_languages on store-scoped responses', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/country', headers: { store: 'WEB2' } });
    expect(response.headers.is_active).toBe('1');
    expect(response.headers.available_languages).toBe('et,en,ru');
  });

  it('follow the store settings', async () => {
    await changeStore(t.database.db, 'WEB2', { isActive: false, availableLanguages: ['et', 'en'] }, Date.now());
    try {
      const response = await t.app.inject({ method: 'GET', url: '/app/config', headers: { store: 'WEB2' } });
      expect(response.headers.is_active).toBe('0');
      expect(response.headers.available_languages).toBe('et,en');
      expect(response.json()).toMatchObject({ isActive: false, languages: ['et', 'en'] });
    } finally {
      await changeStore(t.database.db, 'WEB2', { isActive: true, availableLanguages: ['et', 'en', 'ru'] }, Date.now());
    }
  });
});

describe('x-app-language', () => {
  it.each([
    ['en', 'en', 'Estonia'],
    ['ru', 'ru', 'Эстония'],
    ['et', 'et', 'Eesti'],
    ['de', 'et', 'Eesti'],
    ['EN;q=1', 'et', 'Eesti'],
    // A platform's locale, as the apps may pass it on: its language.
    ['EN', 'en', 'Estonia'],
    ['en-US', 'en', 'Estonia'],
    ['ru_RU', 'ru', 'Эстония'],
    ['English', 'et', 'Eesti'],
  ])('%s answers in %s', async (asked, language, estonia) => {
    const response = await t.app.inject({ method: 'GET', url: '/country', headers: { 'x-app-language': asked } });
    expect(response.headers['content-language']).toBe(language);
    expect(response.json()[0]).toEqual({ code: 'EE', name: estonia });
  });

  it('falls back to the store default when the store does not offer the language', async () => {
    await changeStore(t.database.db, 'WEB2', { availableLanguages: ['et', 'en'] }, Date.now());
    try {
      const response = await t.app.inject({
        method: 'GET',
        url: '/app/config',
        headers: { store: 'WEB2', 'x-app-language': 'ru' },
      });
      expect(response.headers['content-language']).toBe('et');
      expect(response.json().language).toBe('et');
    } finally {
      await changeStore(t.database.db, 'WEB2', { availableLanguages: ['et', 'en', 'ru'] }, Date.now());
    }
  });

  it('translates error messages', async () => {
    const english = await t.app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-app-language': 'en' } });
    const russian = await t.app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-app-language': 'ru' } });
    expect(english.json().message).toBe('No route GET /nowhere.');
    expect(russian.json().message).toContain('Маршрут');
    expect(russian.headers['content-language']).toBe('ru');
  });
});

describe('Cache-Control', () => {
  it('is no-store when the answer depends on the caller', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/app/config', headers: { authorization: 'Bearer x' } });
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('is not forced on anonymous answers', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/app/config' });
    expect(response.headers['cache-control']).toBeUndefined();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// The orders' reads were documented with the repeat's headers: GET /order/{code} offered a
// basket-token and an If-Match described as "Repeat: the basket version...", which no read looks
// at, so a front-end reading /docs sent a basket version with every order page. Only the repeat,
// which writes the basket, takes them.

interface Parameter {
  in: string;
  name: string;
}
let headersOf: (path: string, method: string) => string[];
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { parameters?: Parameter[] }>>;
  };
  headersOf = (path, method) =>
    (doc.paths[path]?.[method]?.parameters ?? [])
      .filter((parameter) => parameter.in === 'header')
      .map((parameter) => parameter.name)
      .sort();
});
afterAll(() => t.close());

describe('the documented headers of the order routes', () => {
  it.each([
    ['/order', 'get'],
    ['/order/{code}', 'get'],
    ['/bought-product', 'get'],
  ])('%s takes the store and the language only', (path, method) => {
    expect(headersOf(path, method)).toEqual(['store', 'x-app-language']);
  });

  it("the repeat takes the basket's token and version too", () => {
    expect(headersOf('/order/{code}/repeat', 'post')).toEqual(['basket-token', 'if-match', 'store', 'x-app-language']);
  });
});

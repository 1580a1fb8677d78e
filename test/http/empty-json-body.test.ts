import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../helpers/catalogue.js';
import { createCustomer } from '../helpers/customers.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// A front-end's API client that sets `Content-Type: application/json` on every request sends it
// with nothing in it to the routes that take no body. Each was a 400 "The request body is empty;
// send a JSON object": a logout, a wishlist removal, a basket's clear failed for a body the route
// never asked for. For those routes an empty JSON body is no body; the rest is refused as before.

let t: TestApp;
let product: number;
beforeAll(async () => {
  t = await createTestApp();
  product = await createProduct(t.database.db);
});
afterAll(() => t.close());

const JSON_HEADERS = { 'content-type': 'application/json', 'x-app-language': 'en' };

const send = (method: 'GET' | 'POST' | 'DELETE', url: string, token?: string, payload?: string) =>
  t.app.inject({ method, url, payload, headers: { ...JSON_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

describe('a route that takes no body, sent Content-Type: application/json and nothing', () => {
  it('does its work: a wishlist removal, a basket clear, a logout', async () => {
    const customer = await createCustomer(t.database.db);
    expect((await send('POST', '/wishlist', customer.token, JSON.stringify({ productId: product }))).statusCode).toBe(201);
    const removed = await send('DELETE', `/wishlist/${product}`, customer.token);
    expect(removed.statusCode, removed.body).toBe(204);
    expect((await send('GET', '/wishlist', customer.token)).json()).toEqual([]);
    const cleared = await send('DELETE', '/basket/clear', customer.token);
    expect(cleared.statusCode, cleared.body).toBe(200);
    const loggedOut = await send('POST', '/auth/logout', customer.token);
    expect(loggedOut.statusCode, loggedOut.body).toBe(200);
    expect((await send('GET', '/user/me', customer.token)).statusCode).toBe(401);
  });

  it('still refuses a body that is not JSON', async () => {
    const customer = await createCustomer(t.database.db);
    expect(expectErrorBody(await send('POST', '/auth/logout', customer.token, '{"a":'), 400, 'Bad Request').message).toBe(
      'The request body is not valid JSON.',
    );
  });
});

describe('a route that takes a body, sent an empty one', () => {
  it('is refused as before, asking for a JSON object', async () => {
    const customer = await createCustomer(t.database.db);
    expect(expectErrorBody(await send('POST', '/wishlist', customer.token), 400, 'Bad Request').message).toBe(
      'The request body is empty; send a JSON object.',
    );
  });
});

import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';

// HTTP calls on the basket as a guest (basket-token) or a client (bearer), and reading the answer.

export interface Who {
  /** A guest's basket token. */
  token?: string;
  /** A client's access token. */
  bearer?: string;
  ifMatch?: string;
  store?: string;
  ip?: string;
  session?: string;
  /** x-app-language: et (the default), en or ru. */
  language?: string;
}

export interface BasketAnswer {
  id: number | null;
  version: string | null;
  basketToken: string | null;
  itemCount: number;
  items: Array<{
    productId: number;
    code: string;
    name: string;
    quantity: number;
    unitPrice: number;
    strikeThroughPrice: number | null;
    lineTotal: number;
    available: boolean;
    maxQuantity: number;
    notice: { code: string; message: string } | null;
  }>;
  subtotal: number;
  discounts: Array<{ code: string; amount: number; applied: boolean; reason: { code: string; message: string } | null }>;
  discountAmount: number;
  deliveryRequired: boolean;
  deliveryMethod: {
    id: number;
    code: string;
    kind: string;
    available: boolean;
    parcelMachine: unknown;
    shop: unknown;
    countryCode: string | null;
  } | null;
  deliveryCost: number;
  total: number;
  vat: Array<{ rate: number; net: number; vat: number }>;
  vatIncluded: boolean;
  currency: string;
  messages?: Array<{ code: string; message: string }>;
}

export function call(t: TestApp, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, who: Who = {}, body?: unknown) {
  const headers: Record<string, string> = {};
  if (who.token !== undefined) headers['basket-token'] = who.token;
  if (who.bearer !== undefined) headers.authorization = `Bearer ${who.bearer}`;
  if (who.ifMatch !== undefined) headers['if-match'] = who.ifMatch;
  if (who.store !== undefined) headers.store = who.store;
  if (who.session !== undefined) headers['x-session-id'] = who.session;
  if (who.language !== undefined) headers['x-app-language'] = who.language;
  return t.app.inject({ method, url, headers, remoteAddress: who.ip, ...(body === undefined ? {} : { payload: body as object }) });
}

/** The basket answer of a 200, checked for the headers every basket answer has. */
export function basketOf(response: LightMyRequestResponse): BasketAnswer {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['cache-control']).toBe('no-store');
  const body = response.json() as BasketAnswer;
  if (body.version !== null) expect(response.headers.etag).toBe(`"${body.version}"`);
  return body;
}

export async function add(t: TestApp, who: Who, productId: number, quantity = 1): Promise<BasketAnswer> {
  return basketOf(await call(t, 'POST', '/basket/add-product', who, { productId, quantity }));
}

export async function read(t: TestApp, who: Who): Promise<BasketAnswer> {
  return basketOf(await call(t, 'GET', '/basket', who));
}

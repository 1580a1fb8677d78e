import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/test-app.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A request to the app as a logged-in client (or as nobody without a token), in the WEB store by default. */
export function as(t: TestApp, token: string | undefined, store = 'WEB') {
  return (method: Method, url: string, payload?: unknown, language = 'en'): Promise<LightMyRequestResponse> =>
    t.app.inject({
      method,
      url,
      headers: { store, 'x-app-language': language, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
}

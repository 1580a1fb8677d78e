import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustomer } from '../helpers/customers.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';
import { importContent, putContent, read } from './content-helpers.js';

// With the catalogue's cache TTL on, a guest's content answer is kept in the process for that long;
// a logged-in caller's or an operator's preview never is.

let t: TestApp;
let key: string;
const body = (title: string) => ({ store: 'WEB', slug: 'kept', translations: { et: { title, body: '<p>x</p>' } } });

beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp({ env: { CATALOGUE_CACHE_TTL_MS: '60000' } }));
  await importContent(t, key, 'content-pages', [{ code: 'KEPT', ...body('Esimene') }]);
});
afterAll(() => t.close());

describe('guest answers kept in the process', () => {
  it('answers guests from the kept answer within the TTL, logged-in callers and previews from the database', async () => {
    expect((await read(t, '/content-page/kept')).json().title).toBe('Esimene');
    expect((await putContent(t, key, 'content-pages', 'KEPT', body('Teine'))).json().outcome).toBe('updated');
    const guest = await read(t, '/content-page/kept');
    expect(guest.json().title).toBe('Esimene');
    expect(guest.headers['cache-control']).toBe('public, max-age=600');
    expect((await read(t, '/content-page/kept', { 'if-none-match': guest.headers.etag as string })).statusCode).toBe(304);
    const retail = await createCustomer(t.database.db, { kind: 'SIMPLE' });
    expect((await read(t, '/content-page/kept', { authorization: `Bearer ${retail.token}` })).json().title).toBe('Teine');
    expect((await read(t, '/content-page/kept?preview=1', { authorization: `Bearer ${key}` })).json().title).toBe('Teine');
    // Another language is another answer.
    expect((await read(t, '/content-page/kept', { 'x-app-language': 'en' })).json().title).toBe('Teine');
  });
});

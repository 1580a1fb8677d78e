import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putContent, read } from '../content/content-helpers.js';
import { createBackOfficeApp } from '../helpers/back-office.js';
import type { TestApp } from '../helpers/test-app.js';

// Ajv checks `minProperties` before it drops the fields a closed object does not name, so an object
// that needs one of its fields took one it does not name and reached the route empty: a content
// page whose translations were all in an unknown language ("ee") was created with an empty title
// and body. The validator passes again over what is left (http/validation.ts); the companies' PUTs
// have their own tests (test/companies).

let t: TestApp;
let key: string;
beforeAll(async () => {
  ({ t, key } = await createBackOfficeApp());
});
afterAll(() => t.close());

describe('an object that needs one of its fields', () => {
  it('refuses one that names none of them, as an empty one, and stores nothing', async () => {
    const page = (translations: unknown) => ({ store: 'WEB', slug: 'terms', translations });
    for (const translations of [{}, { ee: { title: 'Tingimused', body: 'x' } }]) {
      const response = await putContent(t, key, 'content-pages', 'TERMS', page(translations));
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toEqual([{ field: 'translations', message: 'Saatke vähemalt üks väli.' }]);
    }
    expect((await read(t, '/content-page/terms')).statusCode).toBe(404);
    // A language it names beside one it does not: the unknown one is dropped.
    const saved = await putContent(
      t,
      key,
      'content-pages',
      'TERMS',
      page({ et: { title: 'Tingimused', body: 'x' }, ee: { title: 'y', body: 'y' } }),
    );
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await read(t, '/content-page/terms')).json()).toMatchObject({ title: 'Tingimused' });
  });
});

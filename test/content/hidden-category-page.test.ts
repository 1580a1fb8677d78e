import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import { createCategory } from '../helpers/catalogue.js';
import { expectErrorBody } from '../helpers/http.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { importContent, read } from './content-helpers.js';

// A category's landing page is the page of its category: the catalogue answers GET /category/{id}
// of an inactive category, or of one under an inactive parent, with a 404 (test/catalogue/category.test.ts),
// the sitemap and the mega menu leave it out, and a block about it shows nothing. Its landing page
// is hidden with it, as the public sees it; an operator's preview still shows it.

let t: TestApp;
let key: string;
const ids = {} as Record<'shown' | 'hidden' | 'underHidden', number>;
const page = (code: string, category: string) => ({
  code,
  store: 'WEB',
  kind: 'CATEGORY',
  category,
  translations: { et: { title: `Leht ${code}` } },
  blocks: [{ type: 'RICH_TEXT', translations: { et: { body: '<p>Tekst</p>' } } }],
});

beforeAll(async () => {
  t = await createTestApp();
  const db = t.database.db;
  key = await createApiKey(db, 'back-office', Date.now());
  ids.shown = await createCategory(db, { et: 'Ilukirjandus' }, { code: 'SHOWN' });
  ids.hidden = await createCategory(db, { et: 'Peidus' }, { code: 'HIDDEN', active: false });
  ids.underHidden = await createCategory(db, { et: 'Peidetu all' }, { code: 'UNDER-HIDDEN', parentId: ids.hidden });
  const res = await importContent(t, key, 'composite-pages', [
    page('SHOWN-PAGE', 'SHOWN'),
    page('HIDDEN-PAGE', 'HIDDEN'),
    page('UNDER-HIDDEN-PAGE', 'UNDER-HIDDEN'),
  ]);
  expect(res.json(), res.body).toMatchObject({ outcomes: { created: 3 }, errorCount: 0 });
});
afterAll(() => t.close());

describe('GET /category-page/{categoryId}', () => {
  it('answers the landing page of a category the catalogue shows', async () => {
    const res = await read(t, `/category-page/${ids.shown}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ code: 'SHOWN-PAGE', categoryId: ids.shown });
  });

  it('is a 404 for an inactive category or one under an inactive parent, as the category itself is', async () => {
    for (const id of [ids.hidden, ids.underHidden]) {
      expectErrorBody(await read(t, `/category/${id}`), 404, 'Not Found');
      expectErrorBody(await read(t, `/category-page/${id}`), 404, 'Not Found');
    }
  });

  it("shows them in an operator's preview", async () => {
    const preview = await read(t, `/category-page/${ids.hidden}?preview=1`, { authorization: `Bearer ${key}` });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ code: 'HIDDEN-PAGE' });
  });
});

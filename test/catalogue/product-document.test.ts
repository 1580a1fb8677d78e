import { PostgresAdapter, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentBody } from '../../src/db/migrations/2026_11_24_1600_create_product_document.js';
import { createCampaign, createCategory, createPerson, createProduct, createShop, setStock } from '../helpers/catalogue.js';
import { createImportTestApp, type ImportTestApp } from '../import/helpers.js';
import { overlappingWrites } from '../helpers/overlapping-writes.js';

// The product page reads a product's document (product_document), which triggers keep in the
// writer's transaction. Every product must have one, equal to a document built afresh from its
// tables, after imports, edits of the product's rows and of what it shows of other rows (a
// person's name, a campaign, an e-book edition) and deletions; and the page must show the change.

let t: ImportTestApp;
const ids: Record<string, number> = {};
const db = () => t.database.db;

beforeAll(async () => {
  t = await createImportTestApp();
  ids.fiction = await createCategory(db(), { et: 'Ilukirjandus', en: 'Fiction' }, { code: 'FICTION' });
  ids.poetry = await createCategory(db(), { et: 'Luule' }, { code: 'POETRY', parentId: ids.fiction });
  ids.kids = await createCategory(db(), { et: 'Lastele' }, { code: 'KIDS' });
  ids.tammsaare = await createPerson(db(), 'A. H. Tammsaare', 'TAMMSAARE');
  ids.under = await createPerson(db(), 'Marie Under', 'UNDER');
  ids.shop = await createShop(db(), { code: 'VIRU' });
  ids.book = await createProduct(db(), {
    code: 'BOOK',
    categoryIds: [ids.poetry],
    persons: [{ id: ids.tammsaare }, { id: ids.under, role: 'TRANSLATOR' }],
    images: ['https://img.example/a.jpg', 'https://img.example/b.jpg'],
    altCodes: ['9789985000001'],
  });
  ids.ebook = await createProduct(db(), { code: 'EBOOK', type: 'EBOOK', physicalBookId: ids.book, persons: [{ id: ids.under }] });
  await setStock(db(), ids.book, ids.shop, 3);
  ids.campaign = await createCampaign(db(), { code: 'SPRING', prices: [{ productId: ids.book, price: 5 }] });
});
afterAll(() => t.close());

/** Every product has exactly one document, equal to one built afresh, and no document is left of a deleted product. */
async function expectExact(): Promise<void> {
  const postgres = db().getExecutor().adapter instanceof PostgresAdapter;
  const rows = await sql<{ id: number; kept: string | null; fresh: string }>`
    select p.id, d.body as kept, ${sql.raw(documentBody(postgres))} as fresh
    from product p left join product_document d on d.product_id = p.id order by p.id`.execute(db());
  expect(rows.rows.length).toBeGreaterThan(0);
  // On PostgreSQL a campaign's writes leave the documents' campaign prices (cp) to the campaign import's
  // jobs (migration 2026_12_13_1500; test/import/campaign-refresh-locks.test.ts): the page reads campaign_price.
  const compared = (body: string) => (postgres ? { ...JSON.parse(body), cp: undefined } : JSON.parse(body));
  for (const row of rows.rows) expect(row.kept === null ? null : compared(row.kept), `document of ${row.id}`).toEqual(compared(row.fresh));
  const orphans = await sql<{ n: number }>`select count(*) as n from product_document d
    where not exists (select 1 from product p where p.id = d.product_id)`.execute(db());
  expect(Number(orphans.rows[0]!.n)).toBe(0);
}

async function details(id: number, language = 'et') {
  const res = await t.app.inject({ method: 'GET', url: `/product/${id}`, headers: { 'x-app-language': language } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

describe('the product document', () => {
  it('is built for every product and the page shows it', async () => {
    await expectExact();
    const page = await details(ids.book!);
    expect(page.persons.map((p: { code: string }) => p.code)).toEqual(['TAMMSAARE', 'UNDER']);
    expect(page.authors.map((p: { code: string }) => p.code)).toEqual(['TAMMSAARE']);
    expect(page.categories.map((c: { code: string }) => c.code)).toEqual(['POETRY']);
    expect(page.altCodes).toEqual(['9789985000001']);
    expect(page.images.map((i: { url: string }) => i.url)).toEqual(['https://img.example/a.jpg', 'https://img.example/b.jpg']);
    expect(page.ebook).toMatchObject({ id: ids.ebook, code: 'EBOOK' });
    expect(page.price).toBe(5);
    expect(page.availabilityByShop.map((s: { code: string }) => s.code)).toEqual(['VIRU']);
    expect((await details(ids.ebook!)).physicalBook).toMatchObject({ id: ids.book, code: 'BOOK' });
  });

  it('stays exact when a person is renamed, a category or a translation changes', async () => {
    await db().updateTable('person').set({ name: 'Anton Hansen Tammsaare' }).where('id', '=', ids.tammsaare!).execute();
    await expectExact();
    expect((await details(ids.book!)).authors[0].name).toBe('Anton Hansen Tammsaare');
    await db().updateTable('product_category').set({ category_id: ids.kids! }).where('product_id', '=', ids.book!).execute();
    await expectExact();
    expect((await details(ids.book!)).categories.map((c: { code: string }) => c.code)).toEqual(['KIDS']);
    await db().insertInto('product_category').values({ product_id: ids.book!, category_id: ids.fiction! }).execute();
    await db()
      .updateTable('category_name')
      .set({ name: 'Novels' })
      .where('category_id', '=', ids.fiction!)
      .where('language', '=', 'en')
      .execute();
    await expectExact();
    const english = await details(ids.book!, 'en');
    expect(english.categories.find((c: { code: string }) => c.code === 'FICTION').name).toBe('Novels');
  });

  it('stays exact when campaigns, editions, assets, codes and stores change', async () => {
    await db().updateTable('campaign').set({ is_active: false }).where('id', '=', ids.campaign!).execute();
    await expectExact();
    expect((await details(ids.book!)).price).not.toBe(5);
    await db().updateTable('product').set({ name: 'E-raamat' }).where('id', '=', ids.ebook!).execute();
    await expectExact();
    expect((await details(ids.book!)).ebook.name).toBe('E-raamat');
    await db().updateTable('product').set({ is_active: false }).where('id', '=', ids.ebook!).execute();
    await expectExact();
    expect((await details(ids.book!)).ebook).toBeNull();
    await db().deleteFrom('product_asset').where('product_id', '=', ids.book!).where('url', '=', 'https://img.example/a.jpg').execute();
    await db().deleteFrom('product_alt_code').where('product_id', '=', ids.book!).execute();
    await db().insertInto('product_store').values({ product_id: ids.book!, store_code: 'WEB2' }).execute();
    await db().deleteFrom('product_person').where('product_id', '=', ids.book!).where('person_id', '=', ids.under!).execute();
    await expectExact();
    const page = await details(ids.book!);
    expect(page.images.map((i: { url: string }) => i.url)).toEqual(['https://img.example/b.jpg']);
    expect(page.altCodes).toEqual([]);
    expect(page.persons.map((p: { code: string }) => p.code)).toEqual(['TAMMSAARE']);
  });

  it('stays exact through an import of products', async () => {
    const result = await t.run('products', [
      {
        code: 'BOOK',
        type: 'BOOK',
        name: 'Tõde ja õigus',
        stores: ['WEB'],
        shopPrice: 12,
        vatRate: 9,
        availability: 'AVAILABLE',
        categories: ['POETRY'],
        persons: [{ code: 'UNDER', role: 'AUTHOR' }],
      },
      {
        code: 'NEW',
        type: 'BOOK',
        name: 'Uus',
        stores: ['WEB', 'WEB2'],
        shopPrice: 9,
        vatRate: 9,
        availability: 'AVAILABLE',
        categories: ['KIDS'],
      },
    ]);
    expect(result.reported).toEqual([]);
    await expectExact();
    const page = await details(ids.book!);
    expect(page.authors.map((p: { code: string }) => p.code)).toEqual(['UNDER']);
    expect(page.categories.map((c: { code: string }) => c.code)).toEqual(['POETRY']);
  });

  it('drops the document of a deleted product and refreshes its physical book', async () => {
    await db().updateTable('product').set({ is_active: true }).where('id', '=', ids.ebook!).execute();
    expect((await details(ids.book!)).ebook).toMatchObject({ id: ids.ebook });
    await db().deleteFrom('product').where('id', '=', ids.ebook!).execute();
    await expectExact();
    expect((await details(ids.book!)).ebook).toBeNull();
    expect((await t.app.inject({ method: 'GET', url: `/product/${ids.ebook}` })).statusCode).toBe(404);
  });

  it('stays exact when two transactions write one product at once, and both commit', async () => {
    await overlappingWrites(
      db(),
      (trx) => trx.insertInto('product_alt_code').values({ product_id: ids.book!, code: '9789985000002' }).execute(),
      (trx) =>
        trx
          .insertInto('product_asset')
          .values({
            product_id: ids.book!,
            kind: 'IMAGE',
            url: 'https://img.example/c.jpg',
            mime_type: null,
            width: 1,
            height: 1,
            position: 9,
          })
          .execute(),
    );
    await overlappingWrites(
      db(),
      (trx) => trx.insertInto('product_store').values({ product_id: ids.book!, store_code: 'WEB2' }).execute(),
      (trx) => trx.insertInto('product_alt_code').values({ product_id: ids.book!, code: '9789985000003' }).execute(),
    );
    await expectExact();
    const page = await details(ids.book!);
    expect(page.altCodes).toEqual(['9789985000002', '9789985000003']);
    expect(page.images.map((i: { url: string }) => i.url)).toContain('https://img.example/c.jpg');
  });

  it('shows a rename committed while another transaction links the person to a product', async () => {
    const person = await createPerson(db(), 'Juhan Liiv', 'LIIV');
    await overlappingWrites(
      db(),
      (trx) => trx.updateTable('person').set({ name: 'Juhan Liiv (1864-1913)' }).where('id', '=', person).execute(),
      (trx) => trx.insertInto('product_person').values({ product_id: ids.book!, person_id: person, role: 'AUTHOR', position: 9 }).execute(),
    );
    await overlappingWrites(
      db(),
      (trx) => trx.updateTable('campaign').set({ is_active: true }).where('id', '=', ids.campaign!).execute(),
      (trx) =>
        trx
          .insertInto('campaign_price')
          .values({ campaign_id: ids.campaign!, product_id: ids.book!, customer_kind: 'BUSINESS', price_cents: 300, position: 2 })
          .execute(),
    );
    await expectExact();
    expect((await details(ids.book!)).persons.find((p: { code: string }) => p.code === 'LIIV').name).toBe('Juhan Liiv (1864-1913)');
  });

  it('refreshes both products when a child row moves from one to another', async () => {
    const other = await createProduct(db(), { code: 'OTHER' });
    await db().updateTable('product_alt_code').set({ product_id: other }).where('code', '=', '9789985000003').execute();
    await expectExact();
    expect((await details(other)).altCodes).toEqual(['9789985000003']);
    expect((await details(ids.book!)).altCodes).toEqual(['9789985000002']);
  });

  it('is what the page reads: a document changed behind the triggers shows', async () => {
    const kept = await db().selectFrom('product_document').select('body').where('product_id', '=', ids.book!).executeTakeFirstOrThrow();
    const body = { ...JSON.parse(kept.body), ac: ['TAMPERED'] };
    await db()
      .updateTable('product_document')
      .set({ body: JSON.stringify(body) })
      .where('product_id', '=', ids.book!)
      .execute();
    expect((await details(ids.book!)).altCodes).toEqual(['TAMPERED']);
    await db().updateTable('product_document').set({ body: kept.body }).where('product_id', '=', ids.book!).execute();
  });
});

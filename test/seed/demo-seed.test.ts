import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_LOGINS, DEMO_PASSWORD } from '../../src/demo/accounts.js';
import { isValidEan13 } from '../../src/demo/ean.js';
import { DEMO_PRODUCTS, seedDemo, type SeedReport } from '../../src/demo/seed.js';
import { discountPercent } from '../../src/modules/catalogue/denormalised.js';
import { beginBulkWrite, endBulkWrite } from '../../src/modules/catalogue/index.js';
import { createTestApp, engine, type TestApp } from '../helpers/test-app.js';

let t: TestApp;
let report: SeedReport;
const NOW = Date.now();
beforeAll(async () => {
  t = await createTestApp();
  report = await seedDemo(t.database, { now: NOW });
});
afterAll(() => t.close());

const db = () => t.database.db;
const count = async (query: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
  Number((await query.executeTakeFirstOrThrow()).n);

describe(`the demo bookstore (${engine})`, () => {
  it('reports what it loaded', () => {
    expect(report.products).toBeGreaterThanOrEqual(DEMO_PRODUCTS);
    expect(report.products).toBeLessThan(DEMO_PRODUCTS + 5);
    for (const key of [
      'countries',
      'categories',
      'persons',
      'publishers',
      'series',
      'shops',
      'campaigns',
      'productLists',
      'users',
      'salesHistory',
      'sessionActions',
    ] as const) {
      expect(report[key], key).toBeGreaterThan(0);
    }
  });

  it('has every product type, the three languages and some others', async () => {
    const types = await db().selectFrom('product').select('type').distinct().execute();
    expect(types.map((r) => r.type).sort()).toEqual([
      'AUDIOBOOK',
      'BOOK',
      'EBOOK',
      'GAME',
      'GIFT_CARD',
      'MOVIE',
      'MUSIC',
      'OFFICE_EQUIPMENT',
      'TECH',
      'USED_BOOK',
      'VIRTUAL_GIFT_CARD',
    ]);
    const books = await db()
      .selectFrom('product')
      .select(['type', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('type')
      .execute();
    const byType = new Map(books.map((r) => [r.type, Number(r.n)]));
    expect(byType.get('BOOK')).toBeGreaterThan(Number(report.products) / 3);
    const languages = (await db().selectFrom('product').select('language').distinct().execute()).map((r) => r.language);
    expect(languages).toEqual(expect.arrayContaining(['ET', 'EN', 'RU', null]));
    expect(languages.filter((l) => l !== null && !['ET', 'EN', 'RU'].includes(l)).length).toBeGreaterThan(0);
  });

  it('links part of the e-books to their paper edition', async () => {
    const links = await db()
      .selectFrom('product as e')
      .innerJoin('product as p', 'p.id', 'e.physical_book_id')
      .select(['e.type as ebookType', 'p.type as paperType', 'e.name as ebookName', 'p.name as paperName'])
      .execute();
    const ebooks = await count(
      db()
        .selectFrom('product')
        .where('type', '=', 'EBOOK')
        .select((eb) => eb.fn.countAll().as('n')),
    );
    expect(links.length).toBeGreaterThan(0);
    expect(links.length).toBeLessThan(ebooks);
    for (const link of links) expect([link.ebookType, link.paperType, link.ebookName]).toEqual(['EBOOK', 'BOOK', link.paperName]);
  });

  it('has a category tree per store, levels 1 to 3, named in et, en and ru', async () => {
    const categories = await db().selectFrom('category').select(['id', 'store_code', 'parent_id', 'level']).execute();
    const byId = new Map(categories.map((c) => [c.id, c]));
    for (const store of ['WEB', 'WEB2']) {
      expect(new Set(categories.filter((c) => c.store_code === store).map((c) => c.level))).toEqual(new Set([1, 2, 3]));
    }
    expect(categories.filter((c) => c.store_code === 'WEB').length).toBeGreaterThan(
      categories.filter((c) => c.store_code === 'WEB2').length,
    );
    for (const category of categories) {
      const parent = category.parent_id === null ? undefined : byId.get(category.parent_id);
      if (category.level === 1) expect(parent).toBeUndefined();
      else expect([parent?.level, parent?.store_code]).toEqual([category.level - 1, category.store_code]);
    }
    const names = await db()
      .selectFrom('category_name')
      .select(['language', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('language')
      .execute();
    expect(Object.fromEntries(names.map((r) => [r.language, Number(r.n)]))).toEqual({
      et: categories.length,
      en: categories.length,
      ru: categories.length,
    });
  });

  it('sells most products in WEB and a subset in WEB2, each in categories of its store', async () => {
    const stores = await db()
      .selectFrom('product_store')
      .select(['store_code', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('store_code')
      .execute();
    const n = Object.fromEntries(stores.map((r) => [r.store_code, Number(r.n)]));
    expect(n.WEB).toBeGreaterThan(report.products * 0.9);
    expect(n.WEB2).toBeGreaterThan(0);
    expect(n.WEB2).toBeLessThan(n.WEB!);
    const unsold = await count(
      db()
        .selectFrom('product')
        .where((eb) =>
          eb.not(
            eb.exists(
              eb.selectFrom('product_store').select('product_store.product_id').whereRef('product_store.product_id', '=', 'product.id'),
            ),
          ),
        )
        .select((eb) => eb.fn.countAll().as('n')),
    );
    expect(unsold).toBe(0);
    const uncategorised = await count(
      db()
        .selectFrom('product_store as ps')
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('product_category as pc')
                .innerJoin('category as c', 'c.id', 'pc.category_id')
                .select('pc.product_id')
                .whereRef('pc.product_id', '=', 'ps.product_id')
                .whereRef('c.store_code', '=', 'ps.store_code'),
            ),
          ),
        )
        .select((eb) => eb.fn.countAll().as('n')),
    );
    expect(uncategorised).toBe(0);
  });

  it('hides a few products from the web or from business customers', async () => {
    expect(
      await count(
        db()
          .selectFrom('product')
          .where('hidden_web', '=', true)
          .select((eb) => eb.fn.countAll().as('n')),
      ),
    ).toBeGreaterThan(0);
    expect(
      await count(
        db()
          .selectFrom('product')
          .where('hidden_business', '=', true)
          .select((eb) => eb.fn.countAll().as('n')),
      ),
    ).toBeGreaterThan(0);
  });

  it('has Estonian, English and Russian authors, with diacritics, in role order', async () => {
    const names = (await db().selectFrom('person').select('name').execute()).map((r) => r.name);
    for (const expected of ['A. H. Tammsaare', 'Tõnu Õnnepalu', 'Andrus Kivirähk', 'Михаил Булгаков', 'George Orwell'])
      expect(names).toContain(expected);
    const kivirahk = await db()
      .selectFrom('product_person as pp')
      .innerJoin('person as pe', 'pe.id', 'pp.person_id')
      .innerJoin('product as p', 'p.id', 'pp.product_id')
      .where('pe.name', '=', 'Andrus Kivirähk')
      .where('pp.role', '=', 'AUTHOR')
      .select('p.name')
      .execute();
    expect(kivirahk.map((r) => r.name)).toContain('Rehepapp ehk November');
    const roles = (await db().selectFrom('product_person').select('role').distinct().execute()).map((r) => r.role);
    expect(roles).toEqual(expect.arrayContaining(['AUTHOR', 'ILLUSTRATOR', 'TRANSLATOR', 'READER']));
  });

  it('has shops in Estonian towns, some selling on the web, with stock, translated names and hours', async () => {
    const shops = await db().selectFrom('shop').selectAll().execute();
    expect(shops.map((s) => s.city)).toEqual(
      expect.arrayContaining(['Tallinn', 'Tartu', 'Pärnu', 'Narva', 'Viljandi', 'Rakvere', 'Kuressaare']),
    );
    expect(new Set(shops.map((s) => Boolean(s.web_stock)))).toEqual(new Set([true, false]));
    const names = await db().selectFrom('shop_name').select(['language', 'opening_hours']).execute();
    expect(names.length).toBe(shops.length * 3);
    expect(names.every((n) => n.opening_hours)).toBe(true);
    const stocked = await db().selectFrom('shop_stock').select('shop_id').where('quantity', '>', 0).distinct().execute();
    expect(stocked.length).toBeGreaterThan(shops.length / 2);
  });

  it("fills the stores' office contact data, and keeps an operator's own on a second run", async () => {
    const contact = await t.app.inject({ method: 'GET', url: '/contact', headers: { store: 'WEB' } });
    expect(contact.statusCode, contact.body).toBe(200);
    expect(JSON.stringify(contact.json())).toContain('info@raamatupood.example');
    await db().updateTable('store_contact').set({ email: 'office@own.example' }).where('store_code', '=', 'WEB').execute();
    await seedDemo(t.database, { now: NOW });
    const again = await db().selectFrom('store_contact').select('email').where('store_code', '=', 'WEB').executeTakeFirstOrThrow();
    expect(again.email).toBe('office@own.example');
  });

  it('runs one current, one past and one future campaign with retail and business prices', async () => {
    const campaigns = await db().selectFrom('campaign').selectAll().where('store_code', '=', 'WEB').execute();
    const when = campaigns.map((c) => (c.valid_to! <= NOW ? 'past' : c.valid_from! > NOW ? 'future' : 'current'));
    expect(when.sort()).toEqual(['current', 'future', 'past']);
    const prices = await db()
      .selectFrom('campaign_price as cp')
      .innerJoin('product as p', 'p.id', 'cp.product_id')
      .select(['cp.customer_kind', 'cp.price_cents', 'p.shop_price_cents'])
      .execute();
    expect(new Set(prices.map((p) => p.customer_kind))).toEqual(new Set(['RETAIL', 'BUSINESS']));
    for (const price of prices) expect(price.price_cents).toBeLessThan(price.shop_price_cents);
  });

  it('keeps the derived product columns right', async () => {
    const webStock = await sql<{
      n: number;
    }>`select count(*) as n from product where web_stock <> coalesce((select sum(ss.quantity) from shop_stock ss
      inner join shop s on s.id = ss.shop_id where ss.product_id = product.id and s.web_stock = ${true} and s.is_active = ${true}), 0)`.execute(
      db(),
    );
    expect(Number(webStock.rows[0]!.n)).toBe(0);
    const image = await sql<{
      n: number;
    }>`select count(*) as n from product where coalesce(image_url, '') <> coalesce((select a.url from product_asset a
      where a.product_id = product.id and a.kind = 'IMAGE' order by a.position, a.id limit 1), '')`.execute(db());
    expect(Number(image.rows[0]!.n)).toBe(0);
    const rating = await sql<{
      n: number;
    }>`select count(*) as n from product where rating_count <> (select count(*) from product_rating r where r.product_id = product.id)
      or rating_sum <> coalesce((select sum(r.rating) from product_rating r where r.product_id = product.id), 0)`.execute(db());
    expect(Number(rating.rows[0]!.n)).toBe(0);
    expect(
      await count(
        db()
          .selectFrom('product')
          .where('rating_count', '>', 0)
          .select((eb) => eb.fn.countAll().as('n')),
      ),
    ).toBeGreaterThan(0);

    const products = await db().selectFrom('product').selectAll().execute();
    for (const p of products) {
      expect(p.discount_percent, p.code).toBe(discountPercent(p.shop_price_cents, p.original_price_cents));
      if (p.ean !== null) expect(isValidEan13(p.ean), p.ean).toBe(true);
      if (p.availability === 'AVAILABLE' && p.delivery_time !== 'INSTANT_DOWNLOAD') expect(p.web_stock, p.code).toBeGreaterThan(0);
      if (p.web_stock > 0) expect(p.availability, p.code).toBe('AVAILABLE');
      if (p.delivery_time === 'INSTANT_DOWNLOAD') expect(p.web_stock).toBe(0);
      expect(p.vat_rate_percent).toBe(
        ['BOOK', 'EBOOK', 'AUDIOBOOK', 'USED_BOOK'].includes(p.type) ? 9 : p.type.endsWith('GIFT_CARD') ? 0 : 24,
      );
      expect(JSON.parse(p.alt_names)).toBeInstanceOf(Array);
    }
    expect(products.some((p) => p.discount_percent > 0)).toBe(true);
    expect(products.some((p) => p.sales_count > 0)).toBe(true);
    expect(new Set(products.map((p) => p.availability))).toEqual(
      new Set(['AVAILABLE', 'AVAILABLE_IN_SHOP', 'TEMPORARILY_OUT_OF_STOCK', 'PERMANENTLY_OUT_OF_STOCK', 'COMING_SOON']),
    );
    expect(new Set(products.map((p) => p.ean)).size).toBe(products.filter((p) => p.ean !== null).length + 1);
  });

  it('has images, samples, alternate codes, related products, lists and quotes', async () => {
    const assets = await db().selectFrom('product_asset').select(['kind', 'url']).execute();
    expect([...new Set(assets.map((a) => a.kind))]).toEqual(expect.arrayContaining(['IMAGE', 'SAMPLE']));
    expect(assets.filter((a) => a.kind === 'IMAGE').every((a) => /^https:\/\/img\.example\/products\/\d+(-\d)?\.jpg$/.test(a.url))).toBe(
      true,
    );
    for (const table of ['product_alt_code', 'product_related', 'product_list_item', 'quote'] as const) {
      expect(
        await count(
          db()
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n')),
        ),
        table,
      ).toBeGreaterThan(0);
    }
    const lists = await db().selectFrom('product_list_name').select('name').where('language', '=', 'en').execute();
    expect(lists.map((l) => l.name)).toEqual(expect.arrayContaining(['Staff picks', 'Book club']));
  });

  it('fills the export collections', async () => {
    const sales = await db()
      .selectFrom('sales_history')
      .select(['source_type', 'created_nav', 'client_type', 'shop_code', 'session_id'])
      .execute();
    expect(new Set(sales.map((s) => s.source_type))).toEqual(new Set(['ONLINE', 'OFFLINE']));
    expect(sales.some((s) => s.created_nav === null)).toBe(true);
    expect(new Set(sales.map((s) => s.client_type))).toEqual(new Set(['PYSIKLIENT', 'ETTEVOTE']));
    expect(sales.filter((s) => s.source_type === 'OFFLINE').every((s) => s.shop_code !== null && s.session_id === null)).toBe(true);
    const itemless = await count(
      db()
        .selectFrom('sales_history as s')
        .where((eb) =>
          eb.not(eb.exists(eb.selectFrom('sales_history_item as i').select('i.position').whereRef('i.sales_history_id', '=', 's.id'))),
        )
        .select((eb) => eb.fn.countAll().as('n')),
    );
    expect(itemless).toBe(0);
    const actions = (await db().selectFrom('session_action').select('action_type').distinct().execute()).map((r) => r.action_type);
    expect(actions.sort()).toEqual(['ADD_TO_BASKET', 'ADD_TO_WISHLIST', 'VIEW']);
    expect(
      await count(
        db()
          .selectFrom('client_category_preference')
          .select((eb) => eb.fn.countAll().as('n')),
      ),
    ).toBeGreaterThan(0);
  });

  it('gives the stores small guest and logged-in discounts', async () => {
    const stores = await db().selectFrom('web_store').select(['guest_discount_percent', 'logged_in_discount_percent']).execute();
    for (const store of stores) {
      expect(store.guest_discount_percent).toBeGreaterThan(0);
      expect(store.logged_in_discount_percent).toBeGreaterThan(store.guest_discount_percent);
      expect(store.logged_in_discount_percent).toBeLessThanOrEqual(10);
    }
  });

  it("subscribes the users with the newsletter flag in their accounts' stores, which the profile and the lists read", async () => {
    const pairs = await db()
      .selectFrom('app_user as u')
      .innerJoin('client_account as ca', 'ca.user_id', 'u.id')
      .leftJoin('newsletter_subscriber as ns', (join) =>
        join.onRef('ns.email', '=', 'u.email').onRef('ns.store_code', '=', 'ca.store_code').on('ns.withdrawn_at', 'is', null),
      )
      .select(['u.newsletter', 'ns.id as subscriber'])
      .execute();
    const flagged = pairs.filter((pair) => Boolean(pair.newsletter));
    expect(flagged.length).toBeGreaterThan(0);
    expect(flagged.filter((pair) => pair.subscriber === null)).toEqual([]);
    expect(pairs.filter((pair) => !pair.newsletter && pair.subscriber !== null)).toEqual([]);
  });

  it('lets the demo users log in with the documented password; they have comments and ratings', async () => {
    for (const demo of DEMO_LOGINS) {
      const role = demo.business ? 'BUSINESS' : 'SIMPLE';
      const response = await t.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { store: 'WEB' },
        payload: { email: demo.email, password: DEMO_PASSWORD, web_store_nav_code: 'WEB' },
      });
      expect(response.statusCode, response.body).toBe(200);
      const { accessToken } = response.json() as { accessToken: string };
      const me = await t.app.inject({ method: 'GET', url: '/user/me', headers: { authorization: `Bearer ${accessToken}`, store: 'WEB' } });
      expect(me.statusCode).toBe(200);
      expect(me.body).toContain(role);
    }
    const hashes = await db()
      .selectFrom('app_user')
      .select('password_hash')
      .where(
        'email',
        'in',
        DEMO_LOGINS.map((d) => d.email),
      )
      .execute();
    expect(new Set(hashes.map((h) => h.password_hash)).size).toBe(1);
    const rated = await db()
      .selectFrom('product_rating as r')
      .innerJoin('client_account as a', 'a.id', 'r.client_account_id')
      .innerJoin('app_user as u', 'u.id', 'a.user_id')
      .where(
        'u.email',
        'in',
        DEMO_LOGINS.map((d) => d.email),
      )
      .select('u.email')
      .distinct()
      .execute();
    expect(rated.length).toBeGreaterThan(1);
    expect(
      await count(
        db()
          .selectFrom('product_comment')
          .select((eb) => eb.fn.countAll().as('n')),
      ),
    ).toBeGreaterThan(0);
    const business = await db().selectFrom('client_account').select(['type', 'company_id']).where('type', '=', 'BUSINESS').execute();
    expect(business.length).toBe(1);
    expect(business[0]!.company_id).not.toBeNull();
  });

  // PostgreSQL's bulk writes turn the document and listing triggers off and do their work once at the end
  // (src/modules/catalogue/products/bulk-write.ts): the result must be what the triggers make.
  it.runIf(engine === 'postgres')(
    'has every document and category list as their triggers keep them, and the triggers on again',
    async () => {
      const documents = () => db().selectFrom('product_document').select(['product_id', 'body']).orderBy('product_id').execute();
      const listing = async () => [
        await db()
          .selectFrom('category_listing')
          .selectAll()
          .orderBy('category_id')
          .orderBy('audience')
          .orderBy('newest_key')
          .orderBy('product_id')
          .execute(),
        await db().selectFrom('category_listing_count').selectAll().orderBy('category_id').orderBy('audience').execute(),
      ];
      const written = await documents();
      const listed = await listing();
      expect(written).toHaveLength(report.products);
      expect(listed[0]!.length).toBeGreaterThan(report.products);
      // Every seventh product rebuilt by the triggers' own functions (all 3,000 take seconds): the same rows.
      await sql`select product_document_refresh(id), category_listing_refresh(id) from product where id % 7 = 0`.execute(db());
      expect(await documents()).toEqual(written);
      expect(await listing()).toEqual(listed);
      // Writes after a bulk write, in its transaction as in later ones, keep them through the triggers again.
      const id = written[0]!.product_id;
      const after = await db()
        .transaction()
        .execute(async (trx) => {
          await beginBulkWrite(t.database, trx);
          await endBulkWrite(t.database, trx, []);
          await trx.deleteFrom('product_store').where('product_id', '=', id).execute();
          return {
            document: await trx.selectFrom('product_document').select('body').where('product_id', '=', id).executeTakeFirstOrThrow(),
            listed: await trx.selectFrom('category_listing').select('category_id').where('product_id', '=', id).execute(),
          };
        });
      expect(JSON.parse(after.document.body).s).toEqual([]);
      expect(after.listed).toEqual([]);
    },
  );
});

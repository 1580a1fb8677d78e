import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { rowsByIdPages } from '../../db/id-pages.js';
import { GUEST, visibleProduct } from '../catalogue/index.js';

// The sitemap's sections: each is one small provider of the front-end paths of one kind of page,
// read by keyset pages of PAGE rows (never the whole table in memory, never an OFFSET that grows),
// with the time the thing last changed. What a guest may see is the catalogue's rule.

export interface SitemapUrl {
  /** The front-end path, after the store's front-end URL. */
  path: string;
  /** Unix ms of the last change; none for a page no one date changes (the front page). */
  lastmod?: number;
}

export interface SitemapSection {
  /** Also the file names' stem: letters, digits and hyphens. */
  name: string;
  urls(db: Db, storeCode: string, now: number): AsyncIterable<SitemapUrl>;
}

export const PAGE = 1_000;

export interface KeyedRow {
  id: number | bigint | string;
  updated_at: number | bigint | string;
}

/** Rows after the last id of the previous page, in id order, until a short page. */
export async function* keysetPages<Row extends KeyedRow>(page: (afterId: number) => Promise<Row[]>, path: (row: Row) => string) {
  for await (const row of rowsByIdPages(page, PAGE)) yield { path: path(row), lastmod: Number(row.updated_at) };
}

const byId = (prefix: string) => (row: KeyedRow) => `/${prefix}/${Number(row.id)}`;

export const productSection: SitemapSection = {
  name: 'products',
  urls: (db, storeCode) =>
    keysetPages(
      (after) =>
        db
          .selectFrom('product as p')
          .select(['p.id', 'p.updated_at'])
          .where(visibleProduct(storeCode, GUEST))
          .where('p.id', '>', after)
          .orderBy('p.id')
          .limit(PAGE)
          .execute(),
      byId('product'),
    ),
};

/** The store's active rows of a table with its own page (product lists). */
function activeOfStoreSection(name: string, table: 'product_list', prefix: string): SitemapSection {
  return {
    name,
    urls: (db, storeCode) =>
      keysetPages(
        (after) =>
          db
            .selectFrom(table)
            .select(['id', 'updated_at'])
            .where('store_code', '=', storeCode)
            .where('is_active', '=', true)
            .where('id', '>', after)
            .orderBy('id')
            .limit(PAGE)
            .execute(),
        byId(prefix),
      ),
  };
}

/**
 * The categories of the store's shown tree, as GET /category/{id} answers them: active, under
 * active parents from an active root down (a category under an inactive one is hidden with it,
 * catalogue/browse/category-tree.ts). A store has a few hundred categories: the walk is cheap.
 */
export const categorySection: SitemapSection = {
  name: 'categories',
  urls: (db, storeCode) =>
    keysetPages(
      (after) =>
        db
          .withRecursive('shown(id, updated_at)', (start) =>
            start
              .selectFrom('category')
              .select(['id', 'updated_at'])
              .where('store_code', '=', storeCode)
              .where('is_active', '=', true)
              .where('parent_id', 'is', null)
              .unionAll((below) =>
                below
                  .selectFrom('category as c')
                  .innerJoin('shown', 'shown.id', 'c.parent_id')
                  .select(['c.id', 'c.updated_at'])
                  .where('c.store_code', '=', storeCode)
                  .where('c.is_active', '=', true),
              ),
          )
          .selectFrom('shown')
          .select(['id', 'updated_at'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      byId('category'),
    ),
};

/** Persons in every role (authors, translators, illustrators, readers ...) with a product a guest sees in the store. */
export const personSection: SitemapSection = {
  name: 'persons',
  urls: (db, storeCode) =>
    keysetPages(
      (after) =>
        db
          .selectFrom('person as pe')
          .select(['pe.id', 'pe.updated_at'])
          .where('pe.id', '>', after)
          .where(({ exists, selectFrom }) =>
            exists(
              selectFrom('product_person as pp')
                .innerJoin('product as p', 'p.id', 'pp.product_id')
                .select(sql`1`.as('one'))
                .whereRef('pp.person_id', '=', 'pe.id')
                .where(visibleProduct(storeCode, GUEST)),
            ),
          )
          .orderBy('pe.id')
          .limit(PAGE)
          .execute(),
      byId('person'),
    ),
};

/** Publishers or series with a product a guest sees in the store. */
function ownerOfProductsSection(name: string, table: 'publisher' | 'series', column: 'publisher_id' | 'series_id'): SitemapSection {
  return {
    name,
    urls: (db, storeCode) =>
      keysetPages(
        (after) =>
          db
            // Both tables have the id and updated_at read here; the cast names one for the types.
            .selectFrom(`${table} as o` as 'publisher as o')
            .select(['o.id', 'o.updated_at'])
            .where('o.id', '>', after)
            .where(({ exists, selectFrom }) =>
              exists(
                selectFrom('product as p')
                  .select(sql`1`.as('one'))
                  .whereRef(`p.${column}` as 'p.publisher_id', '=', 'o.id')
                  .where(visibleProduct(storeCode, GUEST)),
              ),
            )
            .orderBy('o.id')
            .limit(PAGE)
            .execute(),
        byId(table),
      ),
  };
}

export const publisherSection = ownerOfProductsSection('publishers', 'publisher', 'publisher_id');
export const seriesSection = ownerOfProductsSection('series', 'series', 'series_id');

export const productListSection = activeOfStoreSection('product-lists', 'product_list', 'product-list');

/** Campaigns valid now (their window), as GET /campaign lists them. */
export const campaignSection: SitemapSection = {
  name: 'campaigns',
  urls: (db, storeCode, now) =>
    keysetPages(
      (after) =>
        db
          .selectFrom('campaign as c')
          .select(['c.id', 'c.updated_at'])
          .where('c.store_code', '=', storeCode)
          .where('c.is_active', '=', true)
          .where((eb) => eb.or([eb('c.valid_from', 'is', null), eb('c.valid_from', '<=', now)]))
          .where((eb) => eb.or([eb('c.valid_to', 'is', null), eb('c.valid_to', '>', now)]))
          .where('c.id', '>', after)
          .orderBy('c.id')
          .limit(PAGE)
          .execute(),
      byId('campaign'),
    ),
};

/**
 * The chain's shops as GET /shop/{code} answers them in every store: active and shown to shoppers
 * (a warehouse is not), at the path their QR codes draw.
 */
export const shopSection: SitemapSection = {
  name: 'shops',
  urls: (db) =>
    keysetPages(
      (after) =>
        db
          .selectFrom('shop')
          .select(['id', 'updated_at', 'code'])
          .where('is_active', '=', true)
          .where('is_listed', '=', true)
          .where('id', '>', after)
          .orderBy('id')
          .limit(PAGE)
          .execute(),
      (row) => `/shop/${encodeURIComponent(row.code)}`,
    ),
};

import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../../../db/schema.js';
import type { Caller } from '../caller.js';
import { visibleProduct } from '../visibility.js';

/** Bought-together looks at this many of the latest orders that hold the product, so the query stays bounded. */
export const RECENT_ORDERS = 1_000;
/** Ids kept per product: the largest `limit` a caller may ask for. */
export const MAX_RECOMMENDATIONS = 50;

export interface RecommendationSubject {
  productId: number;
  productCode: string;
  storeCode: string;
  caller: Caller;
  /** The product's most specific categories shown in the store (the same-category source). */
  categoryIds: number[];
}

/**
 * Products to recommend beside one, best first: bought together with it (most shared orders
 * first), then the back office's related products, then the same author's best sellers, then the
 * category's; each only visible products, without duplicates or the product itself. A source is
 * read only while the earlier ones leave room.
 */
export async function recommendedIds(db: Kysely<Database>, subject: RecommendationSubject): Promise<number[]> {
  const picked = new Set<number>([subject.productId]);
  const result: number[] = [];
  const sources = [boughtTogether, related, sameAuthor, sameCategory];
  for (const source of sources) {
    if (result.length >= MAX_RECOMMENDATIONS) break;
    for (const id of await source(db, subject)) {
      if (picked.has(id)) continue;
      picked.add(id);
      result.push(id);
      if (result.length >= MAX_RECOMMENDATIONS) break;
    }
  }
  return result;
}

async function boughtTogether(db: Kysely<Database>, { productCode, storeCode, caller }: RecommendationSubject): Promise<number[]> {
  // The index on (product_code, sales_history_id) hands over the latest orders; their items come by primary key.
  const orders = db
    .selectFrom('sales_history_item')
    .select('sales_history_id')
    .where('product_code', '=', productCode)
    .orderBy('sales_history_id', 'desc')
    .limit(RECENT_ORDERS);
  const rows = await db
    .selectFrom('sales_history_item as i')
    .innerJoin('product as p', 'p.code', 'i.product_code')
    .select([
      'p.id',
      (eb) => eb.fn.count<number>('i.sales_history_id').distinct().as('orders'),
      (eb) => eb.fn.max('i.sales_history_id').as('latest'),
    ])
    .where('i.sales_history_id', 'in', orders)
    .where('i.product_code', '<>', productCode)
    .where(visibleProduct(storeCode, caller))
    .groupBy('p.id')
    .orderBy('orders', 'desc')
    .orderBy('latest', 'desc')
    .orderBy('p.id', 'asc')
    .limit(MAX_RECOMMENDATIONS)
    .execute();
  return rows.map((row) => row.id);
}

async function related(db: Kysely<Database>, { productId, storeCode, caller }: RecommendationSubject): Promise<number[]> {
  const rows = await db
    .selectFrom('product_related as r')
    .innerJoin('product as p', 'p.id', 'r.related_product_id')
    .select('p.id')
    .where('r.product_id', '=', productId)
    .where(visibleProduct(storeCode, caller))
    .orderBy('r.position')
    .orderBy('p.id')
    .limit(MAX_RECOMMENDATIONS)
    .execute();
  return rows.map((row) => row.id);
}

async function sameAuthor(db: Kysely<Database>, subject: RecommendationSubject): Promise<number[]> {
  const authors = db
    .selectFrom('product_person')
    .select('person_id')
    .where('product_id', '=', subject.productId)
    .where('role', '=', 'AUTHOR');
  return ranked(
    db,
    subject,
    db.selectFrom('product_person').select('product_id').where('person_id', 'in', authors).where('role', '=', 'AUTHOR'),
  );
}

/**
 * The best sellers of the product's most specific categories: each category's from the top of
 * category_sales (category_id, sales_count, product_id; migration 1642), walked in its key's
 * order until MAX_RECOMMENDATIONS visible ones are found, then merged. The best of the union is
 * among each category's best, so this is the ranking of every member, at the cost of a page.
 */
async function sameCategory(db: Kysely<Database>, subject: RecommendationSubject): Promise<number[]> {
  const { productId, storeCode, caller, categoryIds } = subject;
  const tops = await Promise.all(
    [...new Set(categoryIds)].map((categoryId) =>
      db
        .selectFrom('category_sales as cs')
        .innerJoin('product as p', 'p.id', 'cs.product_id')
        .select(['cs.product_id as id', 'cs.sales_count'])
        .where('cs.category_id', '=', categoryId)
        .where('cs.product_id', '<>', productId)
        .where(visibleProduct(storeCode, caller))
        .orderBy('cs.sales_count', 'desc')
        .orderBy('cs.product_id', 'desc')
        .limit(MAX_RECOMMENDATIONS)
        .execute(),
    ),
  );
  const best = new Map<number, number>();
  for (const rows of tops) for (const row of rows) best.set(Number(row.id), Number(row.sales_count));
  return [...best]
    .sort(([a, salesA], [b, salesB]) => salesB - salesA || b - a)
    .slice(0, MAX_RECOMMENDATIONS)
    .map(([id]) => id);
}

/**
 * The best-selling visible products among `members`, not the product itself: all of them read
 * and sorted, at a cost in proportion to their number. The candidates are materialised because
 * otherwise both planners may walk product_sales_idx instead, hoping to meet members early; for
 * an author or category that sells little that walk reads nearly the whole catalogue.
 */
async function ranked(
  db: Kysely<Database>,
  { productId, storeCode, caller }: RecommendationSubject,
  members: SelectQueryBuilder<Database, keyof Database, { product_id: number }>,
): Promise<number[]> {
  const rows = await db
    .with(
      (cte) => cte('candidate').materialized(),
      (qb) =>
        qb
          .selectFrom('product as p')
          .select(['p.id', 'p.sales_count'])
          .where('p.id', 'in', members)
          .where('p.id', '<>', productId)
          .where(visibleProduct(storeCode, caller)),
    )
    .selectFrom('candidate')
    .select('candidate.id')
    .orderBy('candidate.sales_count', 'desc')
    .orderBy('candidate.id', 'desc')
    .limit(MAX_RECOMMENDATIONS)
    .execute();
  return rows.map((row) => row.id);
}

/** The product's category ids (any store); the caller narrows them to the store's shown tree. */
export async function productCategoryIds(db: Kysely<Database>, productId: number): Promise<number[]> {
  const rows = await db.selectFrom('product_category').select('category_id').where('product_id', '=', productId).execute();
  return rows.map((row) => row.category_id);
}

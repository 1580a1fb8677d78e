import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { seesBusinessCatalogue, type Caller } from './caller.js';

// The one visibility rule of the catalogue: a caller sees a product that is active, in the store's
// assortment and not hidden from the caller's audience (guests and retail customers see the
// public catalogue, business and wholesale customers the business one). It is written here once,
// in the forms its readers need side by side: a predicate on a loaded product, and SQL over the
// product table (lists, counts, rankings) and over search_product (search). Every form takes the
// audience from hiddenFlag(); test/catalogue/visibility.test.ts holds the forms to each other and
// to the rule for every kind of caller.

/** What the rule reads of a product. */
export interface VisibilityFacts {
  isActive: boolean;
  /** Whether the product is in this store's assortment. */
  inStore: boolean;
  hiddenWeb: boolean;
  hiddenBusiness: boolean;
}

/** The flag that hides a product from the caller's audience. */
export function hiddenFlag(caller: Caller): 'hiddenBusiness' | 'hiddenWeb' {
  return seesBusinessCatalogue(caller) ? 'hiddenBusiness' : 'hiddenWeb';
}

const HIDDEN_COLUMN = { hiddenBusiness: 'hidden_business', hiddenWeb: 'hidden_web' } as const;

/** Whether the caller may see the loaded product in its store at all. */
export function isVisibleTo(product: VisibilityFacts, caller: Caller): boolean {
  return product.isActive && product.inStore && !product[hiddenFlag(caller)];
}

/** The rule over a product row aliased `alias` (product or search_product); `inStore` says it is in the store's assortment. */
function visibleRow(alias: 'p' | 'sp', caller: Caller, inStore: RawBuilder<unknown>): RawBuilder<boolean> {
  const hidden = sql.ref(`${alias}.${HIDDEN_COLUMN[hiddenFlag(caller)]}`);
  return sql<boolean>`(${sql.raw(alias)}.is_active = ${true} and ${hidden} = ${false} and ${inStore})`;
}

/**
 * The rule as a condition on a product aliased `p`; values are bound. Every query that lists,
 * counts or ranks products uses it.
 */
export function visibleProduct(storeCode: string, caller: Caller): RawBuilder<boolean> {
  return visibleRow('p', caller, sql`exists (select 1 from product_store ps where ps.product_id = p.id and ps.store_code = ${storeCode})`);
}

/** An engine's substring test (instr on SQLite, strpos on PostgreSQL). */
export type ContainsSql = (haystack: RawBuilder<string>, needle: string) => RawBuilder<boolean>;

/**
 * The rule as a condition on search_product aliased `sp`, whose `stores` column lists the store
 * codes of the product's assortment, space-separated; `contains` is the engine's substring test.
 */
export function visibleSearchProduct(storeCode: string, caller: Caller, contains: ContainsSql): RawBuilder<SqlBool> {
  return visibleRow('sp', caller, contains(sql<string>`(' ' || sp.stores || ' ')`, ` ${storeCode} `)) as RawBuilder<SqlBool>;
}

/** R for the public catalogue, B for the business one: what a cached answer depends on. */
export function audienceKey(caller: Caller): 'R' | 'B' {
  return seesBusinessCatalogue(caller) ? 'B' : 'R';
}

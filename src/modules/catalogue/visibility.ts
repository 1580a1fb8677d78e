import { sql, type RawBuilder } from 'kysely';
import { seesBusinessCatalogue, type Caller } from './caller.js';

/**
 * The one visibility rule of the catalogue, as a predicate on a product aliased `p`: active, in
 * the store's assortment and not hidden from the caller's audience (guests and retail customers
 * see the public catalogue, business and wholesale customers the business one). Values are bound.
 * Every query that lists, counts or ranks products uses it (see also isVisibleTo for a loaded row).
 */
export function visibleProduct(storeCode: string, caller: Caller): RawBuilder<boolean> {
  const hidden = seesBusinessCatalogue(caller) ? sql.ref('p.hidden_business') : sql.ref('p.hidden_web');
  return sql<boolean>`(p.is_active = ${true} and ${hidden} = ${false} and exists (select 1 from product_store ps where ps.product_id = p.id and ps.store_code = ${storeCode}))`;
}

/** R for the public catalogue, B for the business one: what a cached answer depends on. */
export function audienceKey(caller: Caller): 'R' | 'B' {
  return seesBusinessCatalogue(caller) ? 'B' : 'R';
}

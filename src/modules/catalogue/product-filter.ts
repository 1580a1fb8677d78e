import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import type { ProductTypeCode } from '../../db/schema.js';
import type { PersonRole } from './catalogue.tables.js';

/**
 * Which products a list or a search holds; every filter given must hold. The one definition of
 * what each filter means: product-query.ts compiles it over `product` (the lists, `GET /product`)
 * and search/search-query.ts over `search_product` (search), both through productFilterConditions,
 * so the two cannot drift apart (test/catalogue/product-filter.test.ts compares them).
 */
export interface ProductFilter {
  /** In any of these categories (a category's list passes it with its subcategories). */
  categoryIds?: number[];
  personId?: number;
  /** With personId: only in this role. */
  personRole?: PersonRole;
  publisherId?: number;
  seriesId?: number;
  /** On this product list, if the list is active and the store's: a list shows only where it is shown itself. */
  productListId?: number;
  /** Priced by this campaign, if the campaign is the store's, active and running now (else nothing). */
  campaignId?: number;
  types?: ProductTypeCode[];
  /**
   * Only products whose card shows the caller a discount: where the target gives the card's discount
   * (FilterTarget.cardDiscount: a retail caller's list), that; else the product's own list-price discount.
   */
  discounted?: boolean;
  /** Only products with at least this many sales (the "top" block leaves out what never sold). */
  minSales?: number;
  /** Only products released at or after this time (Unix ms) and not in the future. */
  releasedSince?: number;
  excludeIds?: number[];
}

const EVERY_FILTER = {
  categoryIds: true,
  personId: true,
  personRole: true,
  publisherId: true,
  seriesId: true,
  productListId: true,
  campaignId: true,
  types: true,
  discounted: true,
  minSales: true,
  releasedSince: true,
  excludeIds: true,
} satisfies Record<keyof ProductFilter, true>;

/** Every filter of ProductFilter (the compiler checks none is missing), for tests that must cover them all. */
export const PRODUCT_FILTER_KEYS = Object.keys(EVERY_FILTER) as Array<keyof ProductFilter>;

/** Where the filter is compiled: the products' alias (its columns are those product and search_product share), store and time. */
export interface FilterTarget {
  alias: 'p' | 'sp';
  storeCode: string;
  /** Unix ms: which campaigns run and what is released. */
  now: number;
  /** The discount the caller's card shows, as SQL over the target (pricing's callerPriceSql): what `discounted` asks of. */
  cardDiscount?: Expression<number>;
}

/** The filter as conditions on the target's products, one per filter given, to AND together. */
export function productFilterConditions(
  db: Db,
  filter: ProductFilter,
  { alias, storeCode, now, cardDiscount }: FilterTarget,
): Expression<SqlBool>[] {
  const column = (name: 'id' | 'publisher_id' | 'series_id' | 'type' | 'discount_percent' | 'sales_count' | 'released_at') =>
    sql.ref(`${alias}.${name}`);
  const inSet = (ids: Expression<unknown>) => sql<SqlBool>`${column('id')} in ${ids}`;
  const conditions: Expression<SqlBool>[] = [];
  if (filter.categoryIds !== undefined) {
    const ids = filter.categoryIds.length > 0 ? filter.categoryIds : [-1];
    conditions.push(inSet(db.selectFrom('product_category').select('product_id').where('category_id', 'in', ids)));
  }
  if (filter.personId !== undefined) {
    let persons = db.selectFrom('product_person').select('product_id').where('person_id', '=', filter.personId);
    if (filter.personRole !== undefined) persons = persons.where('role', '=', filter.personRole);
    conditions.push(inSet(persons));
  }
  if (filter.publisherId !== undefined) conditions.push(sql<SqlBool>`${column('publisher_id')} = ${filter.publisherId}`);
  if (filter.seriesId !== undefined) conditions.push(sql<SqlBool>`${column('series_id')} = ${filter.seriesId}`);
  if (filter.productListId !== undefined) {
    conditions.push(
      inSet(
        db
          .selectFrom('product_list_item')
          .innerJoin('product_list', 'product_list.id', 'product_list_item.product_list_id')
          .select('product_list_item.product_id')
          .where('product_list_item.product_list_id', '=', filter.productListId)
          .where('product_list.store_code', '=', storeCode)
          .where('product_list.is_active', '=', true),
      ),
    );
  }
  if (filter.campaignId !== undefined) {
    // An expired, future or switched-off campaign lists nothing, as GET /campaign/:id does not show it.
    conditions.push(
      inSet(
        db
          .selectFrom('campaign_price')
          .innerJoin('campaign', 'campaign.id', 'campaign_price.campaign_id')
          .select('campaign_price.product_id')
          .where('campaign_price.campaign_id', '=', filter.campaignId)
          .where('campaign.store_code', '=', storeCode)
          .where('campaign.is_active', '=', true)
          .where((eb) => eb.or([eb('campaign.valid_from', 'is', null), eb('campaign.valid_from', '<=', now)]))
          .where((eb) => eb.or([eb('campaign.valid_to', 'is', null), eb('campaign.valid_to', '>', now)])),
      ),
    );
  }
  if (filter.types !== undefined && filter.types.length > 0)
    conditions.push(sql<SqlBool>`${column('type')} in (${sql.join(filter.types)})`);
  if (filter.discounted) conditions.push(sql<SqlBool>`${cardDiscount ?? column('discount_percent')} > ${0}`);
  if (filter.minSales !== undefined) conditions.push(sql<SqlBool>`${column('sales_count')} >= ${filter.minSales}`);
  if (filter.releasedSince !== undefined) {
    conditions.push(sql<SqlBool>`${column('released_at')} >= ${filter.releasedSince}`, sql<SqlBool>`${column('released_at')} <= ${now}`);
  }
  if (filter.excludeIds !== undefined && filter.excludeIds.length > 0)
    conditions.push(sql<SqlBool>`${column('id')} not in (${sql.join(filter.excludeIds)})`);
  return conditions;
}

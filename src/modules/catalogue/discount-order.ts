import { sql, type Kysely, type SelectQueryBuilder } from 'kysely';
import type { Database } from '../../db/schema.js';
import { int } from '../../db/sql-int.js';
import { PRODUCT_TYPES } from '../../db/product-types.js';
import { callerPriceSql, isGiftCard, type PriceScope, type PriceSql, type LeastFunction } from '../pricing/index.js';
import type { ProductTable } from './catalogue.tables.js';

// A retail caller's list in the order of the discount their cards show (discountPercent: pricing's
// rule, as callerPriceSql writes it), the largest first, equal discounts by id (newest first), as
// search orders it. That discount is no column: it depends on the caller, the store's discounts and
// the running campaigns. But it is a whole percent, and a list has few distinct ones: the store's
// discount (what almost every book shows), the e-books' own list-price discounts, the campaigns'.
// So the list is kept as its levels (how many products show each discount: one grouped count, the
// cost of the list's count) and a page is read level by level, each in id order:
// - a level that holds a good part of the list, by walking the primary key with the level as a
//   condition (a few rows walked per row wanted);
// - a sparse level, from the products that can show it at all, found by index: those with a
//   running campaign price, those whose own list-price discount is about it (product_discount_idx),
//   the cheap ones whose store or client discount rounds to it (product_price_idx), the gift cards.

type ProductQuery = SelectQueryBuilder<Database & { p: ProductTable }, 'p', object>;

export interface DiscountScope {
  db: Kysely<Database>;
  /** The list's products: visible to the caller, narrowed by its filter. */
  visible: () => ProductQuery;
  /** Whose prices, where and when, with the campaigns running (the ones the list is kept for). */
  price: PriceScope & { runningCampaignIds: readonly number[] };
  least: LeastFunction;
}

/** The caller's card discount over product p: `lookup` reads each product's campaign prices by index (a walk), `join` all at once (a scan). */
export function cardDiscountSql(scope: Pick<DiscountScope, 'price' | 'least'>, campaigns: 'lookup' | 'join'): PriceSql {
  return callerPriceSql(scope.least, scope.price, campaigns, 'p');
}

/** How many of the list's products show each discount: [discount, count] pairs, the largest discount first. */
export async function discountLevels(scope: DiscountScope): Promise<Array<[number, number]>> {
  const { discount, joins } = cardDiscountSql(scope, 'join');
  // The joins are derived tables Kysely cannot type (as in search).
  let query = scope.visible() as unknown as SelectQueryBuilder<any, any, object>; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const join of joins) query = query.leftJoin(join.table.as(join.alias), `${join.alias}.product_id`, 'p.id');
  // Grouped over a derived table: PostgreSQL takes a GROUP BY of the select's expression only with the same parameters.
  const rows = await scope.db
    .selectFrom(query.select(discount.as('level')).as('d'))
    .select(['d.level', sql<number>`count(*)`.as('n')])
    .groupBy('d.level')
    .execute();
  return rows
    .map((row: { level: number | string; n: number | string }): [number, number] => [Number(row.level), Number(row.n)])
    .sort((a: [number, number], b: [number, number]) => b[0] - a[0]);
}

// A level holding at least this share of the list is walked by id (about 1/share rows read per row wanted).
const DENSE_SHARE = 1 / 16;

/**
 * The ids of the list's products from `offset`, `limit` of them, in (discount, id) descending order, of
 * those at `levels`; `walked`: how many products the scope's list holds (a level's share of it is what a walk costs).
 */
export async function discountOrderedIds(
  scope: DiscountScope,
  levels: ReadonlyArray<[number, number]>,
  walked: number,
  offset: number,
  limit: number,
): Promise<number[]> {
  // The page's part of each level it reaches; sparse levels next to each other are read as one run.
  const runs: Array<{ levels: number[]; walk: boolean; from: number; take: number }> = [];
  let start = 0;
  const end = offset + limit;
  for (const [level, count] of levels) {
    if (start >= end) break;
    if (start + count > offset) {
      const from = Math.max(offset - start, 0);
      const take = Math.min(count, end - start) - from;
      const walk = count >= walked * DENSE_SHARE || whoCanShow(scope, [level]) === undefined;
      const last = runs.at(-1);
      if (!walk && last !== undefined && !last.walk) {
        last.levels.push(level);
        last.take += take;
      } else runs.push({ levels: [level], walk, from, take });
    }
    start += count;
  }
  const pages = await Promise.all(runs.map((run) => runPage(scope, run)));
  return pages.flat();
}

async function runPage(
  scope: DiscountScope,
  { levels, walk, from, take }: { levels: number[]; walk: boolean; from: number; take: number },
): Promise<number[]> {
  // A walk joins the running campaign prices once (PostgreSQL, planning a walk of thousands of rows each
  // with two campaign look-ups, costed it past jit_above_cost and spent seconds compiling it).
  const { discount, joins } = cardDiscountSql(scope, walk ? 'join' : 'lookup');
  let query = scope.visible().where(sql<boolean>`${discount} in (${sql.join(levels.map((level) => int(level)))})`);
  if (!walk) query = query.where('p.id', 'in', whoCanShow(scope, levels)!);
  // The joins are derived tables Kysely cannot type (as in search).
  let joined = query as unknown as SelectQueryBuilder<any, any, object>; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (const join of joins) joined = joined.leftJoin(join.table.as(join.alias), `${join.alias}.product_id`, 'p.id');
  // A walked level is one level: the primary key gives its order. A run of sparse levels is sorted, its few rows.
  const ordered = walk ? joined : joined.orderBy(discount, 'desc');
  const rows = await ordered.select('p.id').orderBy('p.id', 'desc').offset(from).limit(take).execute();
  return rows.map((row: { id: number | string }) => Number(row.id));
}

const GIFT_CARD_TYPES = PRODUCT_TYPES.filter(isGiftCard);

/**
 * The ids of every product that can show one of `levels` to the caller, as one union read by indexes, or
 * undefined when the store's or client's discount itself shows one of them at any price (it is then walked).
 *
 * A product without a running campaign price whose discount applies (D percent, D > 0) shows
 * r = half-up(100 (shop - p) / shop), p = half-up(shop (1 - D/100)); p is within half a cent of the exact
 * price, so r is within 50/shop of D: it can be `level` at any price only when D rounds to it, else
 * only below 50/|distance| cents. One whose discount rounds away to nothing shows its own list-price
 * discount (discount_percent, which the import rounds as pricing does; one either side is read for
 * safety); a gift card shows none.
 */
function whoCanShow(
  { db, price }: DiscountScope,
  levels: readonly number[],
): SelectQueryBuilder<Database, 'product', { id: number }> | undefined {
  const { caller, store } = price;
  const client = caller.kind === 'SIMPLE' ? caller.clientDiscountPercent : 0;
  const storePercent = caller.kind === 'GUEST' ? store.guestDiscountPercent : store.loggedInDiscountPercent;
  // Books take the larger of the store's and the client's discount, e-books the client's only.
  let cheapest = 0;
  for (const level of levels) {
    for (const percent of new Set([Math.max(client, storePercent), client])) {
      // Four decimals, as pricing keeps them.
      const d = Math.round(percent * 10_000) / 10_000;
      if (d === 0) continue;
      const gap = d < level - 0.5 ? level - 0.5 - d : d - (level + 0.5);
      if (gap <= 0) return undefined;
      cheapest = Math.max(cheapest, Math.floor(50 / gap) + 1);
    }
  }
  const own = [...new Set(levels.flatMap((level) => [level - 1, level, level + 1]))];
  const parts = [db.selectFrom('product').select('id').where('discount_percent', 'in', own)];
  if (cheapest > 0) parts.push(db.selectFrom('product').select('id').where('shop_price_cents', '<=', cheapest));
  if (levels.includes(0)) parts.push(db.selectFrom('product').select('id').where('type', 'in', GIFT_CARD_TYPES));
  let union = parts.reduce((all, part) => all.unionAll(part));
  if (price.runningCampaignIds.length > 0) {
    union = union.unionAll(
      db
        .selectFrom('campaign_price')
        .select('product_id as id')
        .where('campaign_id', 'in', price.runningCampaignIds)
        .where('customer_kind', '=', 'RETAIL'),
    );
  }
  return union;
}

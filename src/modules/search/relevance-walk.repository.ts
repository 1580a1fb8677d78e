import { sql, type RawBuilder } from 'kysely';
import { visibleSearchProduct } from '../catalogue/index.js';
import { budgetCondition } from '../../db/query-budget.js';
import type { Db, Matches, SearchEngine } from './engine.js';
import { availabilityClass, plainText, type SearchScope } from './search-query.js';

// SQLite: the first pages of a broad text by relevance, read in the order of the sort instead of
// ranking every match. Relevance is (out of stock last, exact title, tier, sales, id); within one
// availability class and one tier it is the order of search_product_relevance_idx (migration 1700). So
// each (class, tier) segment is a walk of the index's class, in sales order, keeping the products of the
// tier the caller sees, until the page is full. A common word matches one product in 50: page 1 is
// about a thousand index entries, against a few thousand matches each looked up, ranked and sorted.
// The products titled exactly the text (a handful, if any) lead their class's title tier: the same
// statement reads them by search_product_title_key_idx, and its walk passes them by.
// A walk stops after WALK_CAP entries; where one ends there short of the page, the page is read the
// usual way (search-query.ts), which gives the same rows: the walk only decides how they are found.

/**
 * How many products the caller sees with every word in the title before a text's pages are walked:
 * fewer are sparse in the walk's order (it would stop at its cap) and cheaper ranked one by one.
 */
export const WALK_MIN_TITLED = 2_000;
/** Walked pages: results up to this far. */
export const WALK_WINDOW = 100;
/** Index entries one segment's walk reads at most. */
export const WALK_CAP = 10_000;

const AVAILABILITY_CLASSES = [0, 1, 2];
/** The index's first column (the walk's subqueries read search_product unaliased). */
const AVAILABILITY_CLASS = availabilityClass(sql.ref('availability'));

interface Segment {
  availability: number;
  /** The tier's matches with those of the tiers above it. */
  within: Matches;
  above: Matches | undefined;
  /** The title tier's: the text's title key, whose products come first. */
  exactTitle: string | undefined;
}

interface Found {
  id: number;
  sales: number;
  /** 1 for a product titled exactly the text. */
  exact: number;
}

/**
 * The cumulative tier sets a walk reads (the title's matches, the title's and persons', every match), or
 * undefined where walking does not apply: a filter, past the window, an engine without tiers, not a text.
 */
export function walkTiers(engine: SearchEngine, scope: SearchScope, offset: number, limit: number): Matches[] | undefined {
  const query = plainText(scope);
  const tiers = query && offset + limit <= WALK_WINDOW ? engine.tierMatches(query) : undefined;
  return tiers && scope.text.kind === 'match' ? [...tiers, scope.text.unranked] : undefined;
}

/** Whether a text whose caller sees `titled` title matches (unknown: undefined or null) is dense enough to walk. */
export function walkPays(titled: number | null | undefined): boolean {
  return titled !== undefined && titled !== null && titled >= WALK_MIN_TITLED;
}

/** The ids of results offset to offset + limit by relevance, or undefined where a walk stopped at its cap. */
export async function walkedRelevancePage(
  db: Db,
  engine: SearchEngine,
  scope: SearchScope,
  tiers: Matches[],
  offset: number,
  limit: number,
  cap = WALK_CAP,
): Promise<number[] | undefined> {
  const found: number[] = [];
  const wanted = offset + limit;
  for (const availability of AVAILABILITY_CLASSES) {
    for (let tier = 0; tier < tiers.length && found.length < wanted; tier++) {
      const exactTitle = tier === 0 && scope.text.kind === 'match' ? scope.text.titleKey : undefined;
      const segment = { availability, within: tiers[tier]!, above: tier > 0 ? tiers[tier - 1] : undefined, exactTitle };
      const need = wanted - found.length;
      const rows = await walkSegment(db, engine, scope, segment, need, cap);
      // Short of the page, the walk either saw its whole class (the segment is complete) or stopped at
      // the cap: then the text's products are too sparse in this order, and ranking its matches is cheaper.
      if (rows.length < need && (await classLongerThan(db, availability, cap))) return undefined;
      // Which rows: the exact titles, then the first `need` in the index's order (CROSS JOIN keeps the walk, a
      // LIMITed subquery read in order, as the outer loop). Their order: sorted here again, which costs nothing for
      // 100 rows; rows past the page's end are left by the slice below.
      rows.sort((a, b) => b.exact - a.exact || b.sales - a.sales || b.id - a.id);
      for (const row of rows) found.push(row.id);
    }
  }
  return found.slice(offset, wanted);
}

/**
 * The tier's and the caller's products, on the walked id (w.id: the match lists are probed before a product row
 * is read); the budget first, so it is checked on walked entries, not only on the matches among them.
 */
function segmentConditions(engine: SearchEngine, scope: SearchScope, segment: Segment): RawBuilder<unknown> {
  const visible = visibleSearchProduct(scope.storeCode, scope.caller, engine.contains);
  const notAbove = segment.above ? sql`and w.id not in (select id from ${segment.above} as a)` : sql``;
  const notExact = segment.exactTitle === undefined ? sql`` : sql`and sp.title_key <> ${segment.exactTitle}`;
  const budget = budgetCondition({ engine: engine.name }, scope.budget, 'w.id');
  return sql`${budget ? sql`${budget} and` : sql``} w.id in (select id from ${segment.within} as t) ${notAbove} and ${visible} ${notExact}`;
}

/**
 * The segment's first `need` rows, walking the index's availability class (CROSS JOIN: SQLite keeps the walk
 * outside). The order names only the columns after the class: with the class too, SQLite sorts instead. The title
 * tier's statement also reads the class's products titled exactly the text, which the walk then passes by.
 */
async function walkSegment(
  db: Db,
  engine: SearchEngine,
  scope: SearchScope,
  segment: Segment,
  need: number,
  cap: number,
): Promise<Found[]> {
  const walked = sql<Found>`select sp.id as id, sp.sales_count as sales, 0 as exact
    from (select id from search_product indexed by search_product_relevance_idx where ${AVAILABILITY_CLASS} = ${segment.availability}
      order by sales_count desc, id desc limit ${cap}) as w
    cross join search_product as sp on sp.id = w.id
    where ${segmentConditions(engine, scope, segment)} limit ${need}`;
  if (segment.exactTitle === undefined) return (await walked.execute(db)).rows;
  const result = await sql<Found>`select * from (${exactTitles(engine, scope, segment.availability, segment.exactTitle)})
    union all select * from (${walked})`.execute(db);
  return result.rows;
}

/**
 * The products of an availability class the caller sees whose title key is the text's. No tier condition: a title
 * that is the text holds every word of it, so it is in the title's tier (and the text's matches) already.
 */
function exactTitles(engine: SearchEngine, scope: SearchScope, availability: number, titleKey: string): RawBuilder<Found> {
  const visible = visibleSearchProduct(scope.storeCode, scope.caller, engine.contains);
  const budget = budgetCondition({ engine: engine.name }, scope.budget, 'sp.id');
  return sql<Found>`select sp.id as id, sp.sales_count as sales, 1 as exact from search_product as sp indexed by search_product_title_key_idx
    where sp.title_key = ${titleKey} and ${availabilityClass(sql.ref('sp.availability'))} = ${availability} and ${visible}
    ${budget ? sql`and ${budget}` : sql``}`;
}

/** Whether the availability class has more than `cap` products (so a walk of `cap` did not see all of it). */
async function classLongerThan(db: Db, availability: number, cap: number): Promise<boolean> {
  const result = await sql`select 1 from search_product indexed by search_product_relevance_idx
    where ${AVAILABILITY_CLASS} = ${availability} limit 1 offset ${cap}`.execute(db);
  return result.rows.length > 0;
}

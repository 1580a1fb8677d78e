import { sql, type RawBuilder } from 'kysely';
import { int } from '../../db/sql-int.js';
import type { Db, Matches, SearchEngine } from './engine.js';
import { callerPrice, scopedProducts, type SearchScope } from './search-query.js';

// Facet counts with GROUP BY over the products the search finds: the same query, materialised
// once, then counted per facet in one statement. A value's count is the number of products the
// search would find with that filter added. Past FACET_CAP products the counts cover the first
// FACET_CAP of them only (and say so), which keeps a facet request on a whole catalogue bounded.
// `cross join` fixes SQLite's join order to start from the found products (it cannot know how
// few they are); PostgreSQL plans it as an ordinary join.

export const FACET_CAP = 20_000;

export interface FacetRequest {
  /** Categories whose subtree counts as one value: [category id, bucket category id] for every category in a bucket. */
  categoryBuckets: ReadonlyArray<readonly [number, number]>;
  /** The category the buckets are below (null: the top categories); names the buckets in cache keys. */
  parentCategoryId: number | null;
  /** Values per facet for persons, publishers and series (the rest are few). */
  limit: number;
}

export interface FacetCounts {
  /** Products counted (all of them unless capped). */
  counted: number;
  capped: boolean;
  types: Count<string>[];
  bindings: Count<string>[];
  languages: Count<string>[];
  publishers: Count<number>[];
  series: Count<number>[];
  persons: Count<number>[];
  categories: Count<number>[];
  /** Lowest and highest price for the caller, in cents; null without products. */
  price: { min: number; max: number } | null;
}

export interface Count<T> {
  value: T;
  count: number;
}

interface FacetRow {
  facet: string;
  code: string | null;
  id: number | null;
  n: number;
}

/** The bucket category of a category id, or null: a CASE over the pairs (a few hundred at most, the store's tree). */
function bucketOf(category: RawBuilder<unknown>, pairs: FacetRequest['categoryBuckets']): RawBuilder<number | null> {
  if (pairs.length === 0) return sql<null>`cast(null as bigint)`;
  return sql<number>`(case ${category} ${sql.join(
    pairs.map(([id, bucket]) => sql`when ${int(id)} then ${int(bucket)}`),
    sql` `,
  )} end)`;
}

export function emptyFacets(): FacetCounts {
  return {
    counted: 0,
    capped: false,
    types: [],
    bindings: [],
    languages: [],
    publishers: [],
    series: [],
    persons: [],
    categories: [],
    price: null,
  };
}

export async function facetCounts(db: Db, engine: SearchEngine, scope: SearchScope, request: FacetRequest): Promise<FacetCounts> {
  const price = callerPrice(engine, scope);
  const found = scopedProducts(db, engine, scope, price)
    .select(['sp.id', 'sp.type', 'sp.binding_code', 'sp.language', 'sp.publisher_id', 'sp.series_id', price.price.as('price')])
    .limit(FACET_CAP + 1);
  const top = (facet: string, column: string) =>
    sql`select * from (select ${sql.lit(facet)} as facet, cast(null as varchar(1)) as code, ${sql.ref(column)} as id, count(*) as n from r
      where ${sql.ref(column)} is not null group by ${sql.ref(column)} order by n desc, ${sql.ref(column)} limit ${int(request.limit)}) t_${sql.raw(facet)}`;
  const rows = await sql<FacetRow>`with found as materialized ${found}, r as materialized (select * from found limit ${int(FACET_CAP)})
    select 'total' as facet, cast(null as varchar(1)) as code, cast(null as bigint) as id, count(*) as n from found
    union all select 'type', type, null, count(*) from r group by type
    union all select 'binding', binding_code, null, count(*) from r where binding_code is not null group by binding_code
    union all select 'language', case when language in ('ET', 'EN', 'RU') then language else 'OTHER' end, null, count(*) from r
      where language is not null group by case when language in ('ET', 'EN', 'RU') then language else 'OTHER' end
    union all ${top('publisher', 'publisher_id')}
    union all ${top('series', 'series_id')}
    union all select * from (select 'person' as facet, cast(null as varchar(1)) as code, pp.person_id as id, count(distinct pp.product_id) as n
      from r cross join product_person pp where pp.product_id = r.id group by pp.person_id order by n desc, pp.person_id limit ${int(request.limit)}) t_person
    union all select 'category', null, bucket, count(distinct id) from (select r.id, ${bucketOf(sql.ref('pc.category_id'), request.categoryBuckets)} as bucket
      from r cross join product_category pc where pc.product_id = r.id) c where bucket is not null group by bucket
    union all select 'price_min', null, min(price), count(*) from r
    union all select 'price_max', null, max(price), count(*) from r`.execute(db);

  const counts = emptyFacets();
  let min: number | null = null;
  let max: number | null = null;
  for (const row of rows.rows) {
    const n = Number(row.n);
    const id = row.id === null ? null : Number(row.id);
    switch (row.facet) {
      case 'total':
        counts.counted = Math.min(n, FACET_CAP);
        counts.capped = n > FACET_CAP;
        break;
      case 'type':
        counts.types.push({ value: row.code!, count: n });
        break;
      case 'binding':
        counts.bindings.push({ value: row.code!, count: n });
        break;
      case 'language':
        counts.languages.push({ value: row.code!, count: n });
        break;
      case 'publisher':
        counts.publishers.push({ value: id!, count: n });
        break;
      case 'series':
        counts.series.push({ value: id!, count: n });
        break;
      case 'person':
        counts.persons.push({ value: id!, count: n });
        break;
      case 'category':
        counts.categories.push({ value: id!, count: n });
        break;
      case 'price_min':
        min = id;
        break;
      case 'price_max':
        max = id;
        break;
    }
  }
  if (min !== null && max !== null && counts.counted > 0) counts.price = { min, max };
  const byCount = <T>(a: Count<T>, b: Count<T>) => b.count - a.count || String(a.value).localeCompare(String(b.value));
  for (const list of [counts.types, counts.bindings, counts.languages, counts.publishers, counts.series, counts.persons])
    list.sort(byCount);
  return counts;
}

/** Persons, publishers or series among the found products whose names match, with their counts. */
export async function facetValueCounts(
  db: Db,
  engine: SearchEngine,
  scope: SearchScope,
  kind: 'person' | 'publisher' | 'series',
  names: Matches,
  limit: number,
): Promise<Count<number>[]> {
  const found = scopedProducts(db, engine, scope, undefined).select(['sp.id', 'sp.publisher_id', 'sp.series_id']).limit(FACET_CAP);
  const grouped =
    kind === 'person'
      ? sql`select pp.person_id as id, count(distinct pp.product_id) as n from r cross join product_person pp
          inner join nm on nm.id = pp.person_id where pp.product_id = r.id group by pp.person_id`
      : sql`select r.${sql.ref(kind === 'publisher' ? 'publisher_id' : 'series_id')} as id, count(*) as n from r
          inner join nm on nm.id = r.${sql.ref(kind === 'publisher' ? 'publisher_id' : 'series_id')} group by 1`;
  // The name matches are read once (nm): as a derived table in the join SQLite ran the full-text
  // match again for every found product (110 ms instead of 0.3 for eight one-letter words on the demo data).
  const rows = await sql<{ id: number; n: number }>`with r as materialized ${found}, nm as materialized (select id from ${names} m)
    select id, n from (${grouped}) g order by n desc, id limit ${int(limit)}`.execute(db);
  return rows.rows.map((row) => ({ value: Number(row.id), count: Number(row.n) }));
}

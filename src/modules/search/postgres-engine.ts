import { sql, type RawBuilder } from 'kysely';
import type { Matches, PendingRow, SearchEngine, TextQuery } from './engine.js';
import { leastFor } from '../pricing/index.js';

// PostgreSQL: tsvector with the 'simple' configuration (the text is folded by the application,
// so no language's stemming or stop words apply) and pg_trgm for typos. Weights: A title,
// B persons, C tags, D publisher and series: a match's tier (engine.ts) is a match restricted to
// weights; autocomplete's shortlist is chosen by ts_rank, whose weight array is {D, C, B, A}, and
// ranked by tier like every other match.

const RANK_WEIGHTS = '{0.05, 0.2, 0.3, 1.0}';
/**
 * Typo matching is for a word or a few: a long text has many trigrams, which makes the trigram
 * index scan slow and the result meaningless. Longer texts get exact matches only.
 */
const MAX_SIMILAR_CHARS = 40;
const similarText = (query: TextQuery): string | undefined => {
  const text = query.terms.join(' ');
  return text.length >= 3 && text.length <= MAX_SIMILAR_CHARS ? text : undefined;
};
const ROWS_PER_INSERT = 400;

/**
 * to_tsquery text from folded terms: each one quoted as a lexeme, so no operator reaches the parser.
 * With `weights`, each lexeme matches only in the columns of those weights ('a':AB, 'b':*AB).
 */
export function tsQuery({ terms, prefix }: TextQuery, weights = ''): string {
  const label = (index: number) => `${prefix && index === terms.length - 1 ? '*' : ''}${weights}`;
  return terms.map((term, index) => `'${term}'${label(index) ? `:${label(index)}` : ''}`).join(' & ');
}

/** The weights of each tier but the last (engine.ts): the title (A), the title and persons (A, B). */
const TIER_WEIGHTS = ['A', 'AB'];

/** A match's tier (engine.ts) from its document. */
function tierOf(document: RawBuilder<unknown>, query: TextQuery) {
  const [title, titleAndPersons] = TIER_WEIGHTS.map((weights) => tsQuery(query, weights));
  return sql<number>`(case when ${document} @@ to_tsquery('simple', ${title}) then 0
    when ${document} @@ to_tsquery('simple', ${titleAndPersons}) then 1 else 2 end)`;
}

export function createPostgresEngine(): SearchEngine {
  return {
    name: 'postgres',
    countsWithPage: () => true,
    looksUpMatches: true,
    // The documents hold no visibility: narrowing the matches would look each one's search_product row up, which the
    // query that ranks them does anyway (engine.ts).
    narrowsToViewer: async () => false,
    matchProducts(query, top) {
      if (top === 0) {
        return sql`(select d.product_id as id, 0 as rank from search_document d where d.document @@ to_tsquery('simple', ${tsQuery(query)}) offset 0)` as Matches;
      }
      if (top === undefined) {
        // `offset 0` keeps the planner from merging the match into the outer query: it cannot
        // estimate a text match, and once merged it may check thousands of filtered products one
        // by one against their documents instead of reading the few matches from the index.
        return sql`(select d.product_id as id, ${tierOf(sql`d.document`, query)} as rank
          from search_document d where d.document @@ to_tsquery('simple', ${tsQuery(query)}) offset 0)` as Matches;
      }
      // The best `top` by ts_rank, ranked by tier: relevance orders them as it orders a search's (ts_rank weighs a
      // word's repeats, which a tier and then sales do not); the tier tests only the shortlist's documents.
      return sql`(select s.id, ${tierOf(sql`s.document`, query)} as rank from (select d.product_id as id, d.document
        from search_document d, to_tsquery('simple', ${tsQuery(query)}) q(q) where d.document @@ q.q
        order by ts_rank(${RANK_WEIGHTS}::float4[], d.document, q.q) desc limit ${top}) as s)` as Matches;
    },
    tierMatches: () => undefined,
    countVisibleMatches: () => undefined,
    similarProducts(query, limit) {
      const text = similarText(query);
      if (text === undefined) return undefined;
      return sql`(select d.product_id as id, -word_similarity(${text}, d.fuzzy) as rank from search_document d
        where ${text} <% d.fuzzy order by word_similarity(${text}, d.fuzzy) desc, d.product_id limit ${limit})` as Matches;
    },
    matchNames(kind, query, top) {
      const best = top === undefined ? sql`offset 0` : sql`order by rank limit ${top}`;
      return sql`(select n.entity_id as id, -ts_rank(n.document, q.q) as rank
        from search_name n, to_tsquery('simple', ${tsQuery(query)}) q(q) where n.kind = ${kind} and n.document @@ q.q ${best})` as Matches;
    },
    similarNames(kind, query, limit) {
      const text = similarText(query);
      if (text === undefined) return undefined;
      return sql`(select n.entity_id as id, -word_similarity(${text}, n.name) as rank from search_name n
        where n.kind = ${kind} and ${text} <% n.name order by word_similarity(${text}, n.name) desc, n.entity_id limit ${limit})` as Matches;
    },
    async writeProducts(trx, documents, removed) {
      if (removed.length > 0) await sql`delete from search_document where product_id = any(${removed}::bigint[])`.execute(trx);
      for (let start = 0; start < documents.length; start += ROWS_PER_INSERT) {
        const rows = documents.slice(start, start + ROWS_PER_INSERT).map(
          (d) => sql`(${d.id}::bigint,
            setweight(to_tsvector('simple', ${d.title}::text), 'A') || setweight(to_tsvector('simple', ${d.persons}::text), 'B')
            || setweight(to_tsvector('simple', ${d.tags}::text), 'C') || setweight(to_tsvector('simple', ${`${d.publisher} ${d.series}`}::text), 'D'),
            ${`${d.title} ${d.persons}`.trim()}::text)`,
        );
        await sql`insert into search_document (product_id, document, fuzzy) values ${sql.join(rows)}
          on conflict (product_id) do update set document = excluded.document, fuzzy = excluded.fuzzy`.execute(trx);
      }
    },
    async writeNames(trx, kind, documents, removed) {
      if (removed.length > 0)
        await sql`delete from search_name where kind = ${kind} and entity_id = any(${removed}::bigint[])`.execute(trx);
      for (let start = 0; start < documents.length; start += ROWS_PER_INSERT) {
        const rows = documents
          .slice(start, start + ROWS_PER_INSERT)
          .map((d) => sql`(${kind}, ${d.id}::bigint, ${d.name}::text, to_tsvector('simple', ${d.name}::text))`);
        await sql`insert into search_name (kind, entity_id, name, document) values ${sql.join(rows)}
          on conflict (kind, entity_id) do update set name = excluded.name, document = excluded.document`.execute(trx);
      }
    },
    async hasDocuments(db) {
      return (await sql`select 1 from search_document limit 1`.execute(db)).rows.length > 0;
    },
    async clear(trx) {
      await sql`delete from search_document`.execute(trx);
      await sql`delete from search_name`.execute(trx);
    },
    async optimize(db) {
      await sql`analyze search_document`.execute(db);
      await sql`analyze search_name`.execute(db);
    },
    async claimPending(trx, limit) {
      // Several API processes fold at once: each takes rows no other transaction holds. The rows
      // are named by ctid in an array computed once (a Tid Scan): written as `(kind, entity_id) in
      // (select ...)`, stale statistics (a queue analysed near empty, then filled by an import) made
      // the planner join the queue to its own batch by a nested loop, 10,000 x 5,000 comparisons,
      // 10 s a batch. A locked row cannot move, so its ctid holds until the delete.
      // Text changes first, visibility changes with what room is left (engine.ts).
      const claim = async (kinds: RawBuilder<boolean>, upTo: number) =>
        (
          await sql<PendingRow>`delete from search_pending where ctid = any(array(
            select ctid from search_pending where ${kinds} limit ${upTo} for update skip locked)) returning kind, entity_id`.execute(trx)
        ).rows.map((row) => ({ kind: row.kind, entity_id: Number(row.entity_id) }));
      const changes = await claim(sql`kind <> 'visibility'`, limit);
      return changes.length < limit ? [...changes, ...(await claim(sql`kind = 'visibility'`, limit - changes.length))] : changes;
    },
    least: leastFor('postgres').least,
    contains(haystack, needle) {
      return sql<boolean>`strpos(${haystack}, ${needle}) > 0`;
    },
    isMissingIndex(error) {
      // undefined_table, undefined_function (pg_trgm gone), undefined_object.
      const code = (error as { code?: unknown } | null)?.code;
      return code === '42P01' || code === '42883' || code === '42704';
    },
  };
}

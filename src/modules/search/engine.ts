import type { Expression, RawBuilder } from 'kysely';
import type { Db, Engine } from '../../db/database.js';
import type { QueryBudget } from '../../db/query-budget.js';

// What differs between the engines, behind one interface: the text index (FTS5 or tsvector and
// trigram), claiming queued changes, and a few SQL functions. Everything else (filters, prices,
// facets) is one Kysely code path over search_product. engines.ts picks the implementation.

export type { Db };
export type NameKind = 'person' | 'publisher' | 'series';
export const NAME_KINDS: readonly NameKind[] = ['person', 'publisher', 'series'];

/** Folded terms that must all match; the last one as a prefix when `prefix`. */
export interface TextQuery {
  terms: string[];
  prefix: boolean;
}

/** A product's text as indexed: each field already folded (see query-text.ts). */
export interface ProductDocument {
  id: number;
  title: string;
  tags: string;
  persons: string;
  publisher: string;
  series: string;
}

export interface NameDocument {
  id: number;
  name: string;
}

export interface PendingRow {
  kind: 'product' | 'visibility' | NameKind;
  entity_id: number;
}

/** Matches as a derived table: entity id and a rank, lower is better. */
export type Matches = RawBuilder<{ id: number; rank: number }>;

/** Whose products a match is narrowed to: a store's, as an audience (R public, B business catalogue) sees them. */
export interface Viewer {
  storeCode: string;
  audience: 'R' | 'B';
}

export interface SearchEngine {
  readonly name: Engine;
  /**
   * Whether a page is best read with its total in one pass (PostgreSQL: `count(*) over ()`, about
   * free; SQLite: a text's matches kept once, then counted and sorted for the page), instead of a
   * second query that visits every product found again. `textMatch`: whether a text narrows them
   * (without one SQLite finds most of the catalogue, which is cheaper counted apart).
   */
  countsWithPage(textMatch: boolean): boolean;
  /**
   * Whether to read the matches once (a materialised CTE) and also look the products up by their
   * ids: PostgreSQL cannot estimate a text match and would otherwise scan every product.
   */
  readonly looksUpMatches: boolean;
  /**
   * Products whose document holds every term, ranked by tier: 0 where every term is in the title,
   * 1 where every term is in the title and persons, 2 for the rest (tags, publisher, series), so a
   * search orders by tier and then by sales, as documented. With `top`, only that many of the best
   * by the engine's weighted text rank (autocomplete's shortlist), still ranked by tier, so that
   * suggestions follow search's relevance (in the same statement). `top: 0` asks for every match
   * unranked (rank 0), for counts and facets, which need no order. With a budget the matches are
   * read within it (where the engine needs a condition for that). With a viewer (only where
   * narrowsToViewer says so), only the products it sees: autocomplete ranks every match the caller
   * sees where products of others crowded its shortlist (search.service.ts).
   */
  matchProducts(query: TextQuery, top?: number, budget?: QueryBudget, viewer?: Viewer): Matches;
  /**
   * Whether matchProducts can narrow matches to a viewer now, from the text index alone: SQLite by each
   * document's `hidden` words, so not while a visibility change waits to be folded (the words may be
   * stale then: a product shown again would be left out); PostgreSQL never (its documents hold no
   * visibility).
   */
  narrowsToViewer(db: Db): Promise<boolean>;
  /**
   * The matches of tiers 0 and of 0 and 1 together, unranked, where the engine reads them cheaply
   * apart (SQLite: FTS5 column filters), for a relevance page walked in sales order
   * (relevance-walk.repository.ts); undefined where it does not.
   */
  tierMatches(query: TextQuery): Matches[] | undefined;
  /**
   * How many of the text's matches an audience (R public, B business catalogue) sees in a store (n)
   * and, with `titledUpTo`, how many of them have every word in the title, counted up to that many
   * (whether a walk pays asks no more; reading the rest cost a common word ~160 µs), by the text
   * index alone (SQLite: each document holds words for where it is hidden). Both are null while
   * changes wait to be folded (count the rows then). Undefined where the engine counts with the products' rows.
   */
  countVisibleMatches(
    query: TextQuery,
    storeCode: string,
    audience: 'R' | 'B',
    budget: QueryBudget | undefined,
    titledUpTo: number | undefined,
  ): RawBuilder<{ n: number | null; titled: number | null }> | undefined;
  /** Products whose title or persons come close to the text, for typos; undefined where the engine has no such matching. */
  similarProducts(query: TextQuery, limit: number): Matches | undefined;
  /** Persons, publishers or series whose name holds every term; with `top`, only that many of the best ranked. */
  matchNames(kind: NameKind, query: TextQuery, top?: number, budget?: QueryBudget): Matches;
  similarNames(kind: NameKind, query: TextQuery, limit: number): Matches | undefined;
  /** Replaces the documents of these products; `removed` are ids whose product is gone. */
  writeProducts(trx: Db, documents: ProductDocument[], removed: number[]): Promise<void>;
  writeNames(trx: Db, kind: NameKind, documents: NameDocument[], removed: number[]): Promise<void>;
  /** Whether the text index holds any product document (none: never built, e.g. before a first import is folded). */
  hasDocuments(db: Db): Promise<boolean>;
  /** Empties the text index (a rebuild refills it). */
  clear(trx: Db): Promise<void>;
  /** Compacts the index after a rebuild. */
  optimize(db: Db): Promise<void>;
  /**
   * Takes up to `limit` queued changes out of search_pending, skipping rows another process holds: the
   * changes of text (products, names) first, `visibility` changes only with the room left. A search folds
   * one batch before it answers, and the readiness rule counts the text changes alone against it
   * (index-readiness.ts); an import queues a visibility change beside each product's, so a batch taken in
   * queue order folded half the products of a 300-line import and the search showed the rest as missing.
   */
  claimPending(trx: Db, limit: number): Promise<PendingRow[]>;
  /** The smaller or larger of the values (min/max on SQLite, least/greatest on PostgreSQL). */
  least(...values: Expression<number | null>[]): RawBuilder<number>;
  /** Whether `needle` occurs in `haystack`. */
  contains(haystack: Expression<string>, needle: string): RawBuilder<boolean>;
  /** Whether an error says the index tables are missing (an old or damaged database): 503, not 500. */
  isMissingIndex(error: unknown): boolean;
}

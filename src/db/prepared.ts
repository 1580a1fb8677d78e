import type { Compilable, Kysely } from 'kysely';
import type { DatabaseHandle, Db } from './database.js';
import type { Database } from './schema.js';

/** Stands in for the n-th argument while the query is compiled. */
class Placeholder {
  constructor(readonly index: number) {}
}

/** A query compiled once; call it outside transactions, or `.on(db)` on any Db, an open transaction included. */
export interface PreparedQuery<Args extends unknown[], Row> {
  /** Outside any transaction, by the engine's shortest path (see DatabaseHandle.select). */
  (...args: Args): Promise<Row[]>;
  /**
   * On `db`: inside an open transaction its own connection (on SQLite the cached statement, run at
   * once; on PostgreSQL the transaction's client), else the same path as calling it directly.
   */
  on(db: Db, ...args: Args): Promise<Row[]>;
}

/**
 * A query of a hot path, built and compiled by Kysely once and then run with new arguments by the
 * engine's shortest path: no query building, compiling or executor per call. Arguments must be
 * scalar values used as bound parameters (not lists for `in`), and the builder must declare them as
 * plain parameters (its arity counts them). A write may be prepared too; it answers with the rows of
 * its RETURNING clause (none without one).
 *
 * Called directly it runs outside transactions only: on SQLite it waits for an open transaction to
 * end (so from inside one it would wait for itself), on PostgreSQL it takes any pooled client (not
 * the transaction's). Inside a transaction use `.on(trx, ...)`.
 *
 *   const findStore = preparedQuery(handle, (db, code: string) => db.selectFrom('web_store').selectAll().where('code', '=', code));
 *   const rows = await findStore('WEB');
 *   const inside = await findStore.on(trx, 'WEB');
 */
export function preparedQuery<Args extends unknown[], Row>(
  handle: DatabaseHandle,
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
): PreparedQuery<Args, Row> {
  const bound = compileBound<Args>(build.length - 1, (placeholders) => build(handle.db, ...(placeholders as Args)));
  const query = (...args: Args) => handle.select<Row>(bound.sql, bound.bind(args));
  query.on = (db: Db, ...args: Args) => handle.selectOn<Row>(db, bound.sql, bound.bind(args));
  return query;
}

/** A query over a list of values (`in`), compiled once per length of the list; see preparedListQuery. */
export interface PreparedListQuery<Item extends string | number, Args extends unknown[], Row> {
  (list: readonly Item[], ...args: Args): Promise<Row[]>;
  on(db: Db, list: readonly Item[], ...args: Args): Promise<Row[]>;
}

/** Lists up to this long keep their compiled SQL (one statement per length); longer ones are compiled per call. */
const KEPT_LIST_LENGTHS = 100;

/**
 * preparedQuery for a query whose first argument is a list used as `in (...)`, such as the rows of
 * a page of products: built and compiled by Kysely once per length of the list, then run by the
 * engine's shortest path. Kysely's building and compiling cost more than the read itself for a
 * page of cards (measured: 150 µs for the four reads of a card page). The list must not be empty
 * (`in ()` is not SQL): callers answer an empty list themselves.
 *
 *   const names = preparedListQuery(handle, (db, ids: readonly number[]) => db.selectFrom('product').select('name').where('id', 'in', ids));
 *   const rows = await names([1, 2, 3]);
 */
export function preparedListQuery<Item extends string | number, Args extends unknown[], Row>(
  handle: DatabaseHandle,
  build: (db: Kysely<Database>, list: readonly Item[], ...args: Args) => Compilable<Row>,
): PreparedListQuery<Item, Args, Row> {
  const arity = build.length - 2;
  const byLength = new Map<number, Bound<unknown[]>>();
  const compiled = (length: number) => {
    if (length === 0) throw new Error('preparedListQuery: the list is empty');
    let bound = byLength.get(length);
    if (bound === undefined) {
      bound = compileBound<unknown[]>(length + arity, (placeholders) =>
        build(handle.db, placeholders.slice(0, length) as unknown as Item[], ...(placeholders.slice(length) as unknown as Args)),
      );
      if (length <= KEPT_LIST_LENGTHS) byLength.set(length, bound);
    }
    return bound;
  };
  const query = (list: readonly Item[], ...args: Args) => {
    const bound = compiled(list.length);
    return handle.select<Row>(bound.sql, bound.bind([...list, ...args]));
  };
  query.on = (db: Db, list: readonly Item[], ...args: Args) => {
    const bound = compiled(list.length);
    return handle.selectOn<Row>(db, bound.sql, bound.bind([...list, ...args]));
  };
  return query;
}

interface Bound<Args extends unknown[]> {
  sql: string;
  /** The statement's parameters for these arguments. */
  bind(args: Args): readonly unknown[];
}

/** Compiles what `build` makes of `count` placeholders, and how to put arguments in their places. */
function compileBound<Args extends unknown[]>(count: number, build: (placeholders: Placeholder[]) => Compilable<unknown>): Bound<Args> {
  const placeholders = Array.from({ length: count }, (_, index) => new Placeholder(index));
  const { sql, parameters } = build(placeholders).compile();
  const slots = parameters.map((value) => (value instanceof Placeholder ? value.index : -1));
  if (new Set(slots.filter((slot) => slot >= 0)).size !== placeholders.length) {
    throw new Error('preparedQuery: every argument must be used as a bound parameter');
  }
  const constants = parameters.map((value) => (value instanceof Placeholder ? undefined : value));
  // Most queries bind exactly their arguments, in order: those pass them through untouched.
  const bind =
    slots.length === placeholders.length && slots.every((slot, position) => slot === position)
      ? (args: Args): readonly unknown[] => args
      : (args: Args): readonly unknown[] => slots.map((slot, position) => (slot >= 0 ? args[slot] : constants[position]));
  return { sql, bind };
}

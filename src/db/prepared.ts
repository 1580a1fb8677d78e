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
  const placeholders = Array.from({ length: build.length - 1 }, (_, index) => new Placeholder(index));
  const { sql, parameters } = build(handle.db, ...(placeholders as unknown as Args)).compile();
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
  const query = (...args: Args) => handle.select<Row>(sql, bind(args));
  query.on = (db: Db, ...args: Args) => handle.selectOn<Row>(db, sql, bind(args));
  return query;
}

import type { Compilable, Kysely } from 'kysely';
import type { DatabaseHandle } from './database.js';
import type { Database } from './schema.js';

/** Stands in for the n-th argument while the query is compiled. */
class Placeholder {
  constructor(readonly index: number) {}
}

/**
 * A query of a hot path, built and compiled by Kysely once and then run with new arguments by the
 * engine's shortest path (see DatabaseHandle.select): no query building, compiling or executor
 * per call. Arguments must be scalar values used as bound parameters (not lists for `in`), and
 * the builder must declare them as plain parameters (its arity counts them). Outside transactions only.
 *
 *   const findStore = preparedQuery(handle, (db, code: string) => db.selectFrom('web_store').selectAll().where('code', '=', code));
 *   const rows = await findStore('WEB');
 */
export function preparedQuery<Args extends unknown[], Row>(
  handle: DatabaseHandle,
  build: (db: Kysely<Database>, ...args: Args) => Compilable<Row>,
): (...args: Args) => Promise<Row[]> {
  const placeholders = Array.from({ length: build.length - 1 }, (_, index) => new Placeholder(index));
  const { sql, parameters } = build(handle.db, ...(placeholders as unknown as Args)).compile();
  const slots = parameters.map((value) => (value instanceof Placeholder ? value.index : -1));
  if (new Set(slots.filter((slot) => slot >= 0)).size !== placeholders.length) {
    throw new Error('preparedQuery: every argument must be used as a bound parameter');
  }
  const constants = parameters.map((value) => (value instanceof Placeholder ? undefined : value));
  // Most queries bind exactly their arguments, in order: those pass them through untouched.
  if (slots.length === placeholders.length && slots.every((slot, position) => slot === position)) {
    return (...args: Args) => handle.select<Row>(sql, args);
  }
  return (...args: Args) =>
    handle.select<Row>(
      sql,
      slots.map((slot, position) => (slot >= 0 ? args[slot] : constants[position])),
    );
}

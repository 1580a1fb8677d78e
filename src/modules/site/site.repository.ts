import type { DatabaseHandle } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';

/**
 * The health probe's query (`select 1`), prepared once: the probe runs often and should cost the
 * database, not the query builder. The returned function runs it and throws when the database is
 * unreachable.
 */
export function databasePing(database: DatabaseHandle): () => Promise<unknown> {
  return preparedQuery(database, (db) => db.selectNoFrom((eb) => eb.lit(1).as('ok')));
}

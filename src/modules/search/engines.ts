import type { DatabaseHandle } from '../../db/database.js';
import type { SearchEngine } from './engine.js';
import { createPostgresEngine } from './postgres-engine.js';
import { createSqliteEngine } from './sqlite-engine.js';

/** The search engine of the database's engine. */
export function createEngine(handle: DatabaseHandle): SearchEngine {
  return handle.engine === 'postgres' ? createPostgresEngine() : createSqliteEngine();
}

import { CompiledQuery, type KyselyPlugin, type QueryId } from 'kysely';
import type { DatabaseHandle } from '../../src/db/database.js';
import { wrappedDatabase } from './wrapped-database.js';

// A database handle that records every statement the app runs through it, with its parameters,
// for test/http/plan-sweep.test.ts: give it to the app (createTestApp's wrapDatabase) and read
// what a request ran. Both ways a statement reaches the engine are seen: Kysely's executor (a
// plugin keeps the compiled query and records it once its result comes back, so a query only
// compiled, as preparedQuery compiles its SQL once with placeholders, is not recorded) and the
// prepared queries' shortest path (select and selectOn). A statement that fails is not recorded.

export interface StatementRecorder {
  /** The handle to give the app: the same database, every statement recorded while recording. */
  handle: DatabaseHandle;
  /** Starts a new list: what runs from now on is recorded. */
  start(): void;
  /** The statements run since start(), in the order their results came back; recording stops. */
  stop(): CompiledQuery[];
}

export function recordingDatabase(database: DatabaseHandle): StatementRecorder {
  let recording: CompiledQuery[] | undefined;
  const compiled = new WeakMap<QueryId, CompiledQuery>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (recording) compiled.set(queryId, database.db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    async transformResult({ result, queryId }) {
      const query = compiled.get(queryId);
      if (query && recording) recording.push(query);
      compiled.delete(queryId);
      return result;
    },
  };
  const record = (sql: string, parameters: readonly unknown[]) => recording?.push(CompiledQuery.raw(sql, [...parameters]));
  const handle = wrappedDatabase(database, plugin, record);
  return {
    handle,
    start() {
      recording = [];
    },
    stop() {
      const statements = recording ?? [];
      recording = undefined;
      return statements;
    },
  };
}

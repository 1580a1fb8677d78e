import { SelectQueryNode, TableNode, type Kysely, type KyselyPlugin, type Transaction } from 'kysely';
import type { Database } from '../../src/db/schema.js';

/**
 * Runs `first` in a transaction that stays open (uncommitted) while `during` starts, then commits
 * the first and waits for both. `during` runs as its caller would run it: a transaction of its own,
 * a job handler. On PostgreSQL it reaches the first's rows while they are in flight, which is where
 * a read taken before a lock goes stale; on SQLite it waits for the write lock.
 */
export async function whileTransactionOpen(
  db: Kysely<Database>,
  first: (trx: Transaction<Database>) => Promise<unknown>,
  during: () => Promise<unknown>,
  overlapMs = 300,
): Promise<void> {
  let wrote!: () => void;
  const firstWrote = new Promise<void>((resolve) => (wrote = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const one = db.transaction().execute(async (trx) => {
    await first(trx);
    wrote();
    await released;
  });
  await Promise.race([firstWrote, one]);
  const two = during();
  // Long enough for the second to reach the rows (or locks) the first holds.
  await new Promise((resolve) => setTimeout(resolve, overlapMs));
  release();
  await Promise.all([one, two]);
}

/**
 * Two transactions whose writes overlap (whileTransactionOpen): on PostgreSQL kept tables
 * (triggers) can miss each other's rows there. Either way both must commit.
 */
export function overlappingWrites(
  db: Kysely<Database>,
  first: (trx: Transaction<Database>) => Promise<unknown>,
  second: (trx: Transaction<Database>) => Promise<unknown>,
  overlapMs = 300,
): Promise<void> {
  return whileTransactionOpen(db, first, () => db.transaction().execute(async (trx) => void (await second(trx))), overlapMs);
}

/**
 * A handle on `db` whose first read of `table` hands back its rows only after `between` has run
 * (and committed). Code given this handle (a job handler, on the outer handle) meets a change that
 * lands between its read and its write, on both engines: whileTransactionOpen cannot place one
 * there on SQLite, where a read outside a transaction waits for the open one to end.
 */
export function afterFirstRead(db: Kysely<Database>, table: keyof Database, between: () => Promise<unknown>): Kysely<Database> {
  const hook = nextReadHook(table);
  hook.arm(between);
  return db.withPlugin(hook.plugin);
}

/** What nextReadHook gives: the plugin, and the run to place after the next read. */
export interface NextReadHook {
  plugin: KyselyPlugin;
  /** Runs `between` once, right after the next read of the table and before its rows are handed back. */
  arm(between: () => Promise<unknown>): void;
  /** Whether an armed run still waits for its read. */
  readonly armed: boolean;
}

/**
 * A plugin for a whole app's handle (createTestApp's wrapDatabase with wrappedDatabase) that runs
 * what a test arms once, after the next read of `table`: a change committed between a request's
 * read and its transaction, as afterFirstRead places one for code given a handle.
 */
export function nextReadHook(table: keyof Database): NextReadHook {
  let pending: (() => Promise<unknown>) | undefined;
  const reads = new Set<string>();
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      const from = SelectQueryNode.is(node) ? node.from?.froms : undefined;
      if (pending && from?.some((item) => TableNode.is(item) && item.table.identifier.name === table)) reads.add(queryId.queryId);
      return node;
    },
    async transformResult({ result, queryId }) {
      if (reads.delete(queryId.queryId) && pending) {
        const run = pending;
        pending = undefined;
        await run();
      }
      return result;
    },
  };
  return {
    plugin,
    arm: (between) => void (pending = between),
    get armed() {
      return pending !== undefined;
    },
  };
}

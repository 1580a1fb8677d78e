import { sql, type Generated, type Kysely, type Transaction } from 'kysely';
import { inTransactionRetryingOnDeadlock } from '../../db/deadlock.js';
import { isPostgres } from '../../db/row-lock.js';
import type { Database } from '../../db/schema.js';
import type { Logger } from '../../infra/logger.js';

// The generic SQL of writing by comparison (write.ts, child-rows.ts): coded records and the child
// rows of an owner, for tables whose name is data, and the transaction of one import line.

type Row = Record<string, unknown>;
/** A coded table as Kysely sees it when its name is data: typed at the callers (write.ts). */
type CodedRows = Record<string, { id: Generated<number>; code: string; created_at: number; updated_at: number }>;
/** The tables as Kysely sees them when their names are data: typed at the callers, by ChildRows. */
type AnyTables = Record<string, Row>;

const coded = (trx: Transaction<Database>) => trx as unknown as Transaction<CodedRows>;
const anyTables = (trx: Transaction<Database>) => trx as unknown as Transaction<AnyTables>;

/**
 * The stored record, locked on PostgreSQL until the line commits (SQLite's write transaction is
 * serial already): its row is written from a comparison with what this read, so a line of another
 * import writing the same record (the price feed beside the product feed) waits, and then is
 * compared with what this line wrote. `no key update`: inserts that reference the row (an order
 * line's product) do not wait for it.
 */
export function findCoded(trx: Transaction<Database>, table: string, code: string) {
  const query = coded(trx).selectFrom(table).selectAll().where('code', '=', code);
  return (isPostgres(trx) ? query.forNoKeyUpdate() : query).executeTakeFirst();
}

/** Inserts a coded record; `returning` works on both engines (SQLite 3.35+). */
export async function insertCoded(
  trx: Transaction<Database>,
  table: string,
  values: Row & { code: string; created_at: number; updated_at: number },
): Promise<number> {
  const row = await coded(trx).insertInto(table).values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateCoded(
  trx: Transaction<Database>,
  table: string,
  id: number,
  values: Row & { updated_at: number },
): Promise<void> {
  await coded(trx).updateTable(table).set(values).where('id', '=', id).execute();
}

/** The owner's rows of the table, the `columns` of them, in `orderBy` order when given. */
export async function readChildRows(
  trx: Transaction<Database>,
  table: string,
  owner: string,
  ownerId: number,
  columns: readonly string[],
  orderBy: readonly string[],
): Promise<Row[]> {
  let query = anyTables(trx).selectFrom(table).select(columns).where(owner, '=', ownerId);
  for (const column of orderBy) query = query.orderBy(column);
  return (await query.execute()) as Row[];
}

export async function deleteChildRows(trx: Transaction<Database>, table: string, owner: string, ownerId: number): Promise<void> {
  await anyTables(trx).deleteFrom(table).where(owner, '=', ownerId).execute();
}

export async function insertChildRows(trx: Transaction<Database>, table: string, rows: readonly Row[]): Promise<void> {
  await anyTables(trx).insertInto(table).values(rows).execute();
}

/**
 * The transaction of one line. On PostgreSQL its commit does not wait for the WAL to reach the
 * disk (synchronous_commit off for this transaction only): a crash may lose the last lines
 * committed, never corrupt anything, and the import is simply run again. Waiting for the disk once
 * a line made a large feed several times slower. A line PostgreSQL ended on a deadlock with another
 * writer (a feed's line beside the import's, over a category's listing total) runs again: a line only
 * writes the database (its events through the outbox) and keeps nothing outside it until it commits.
 */
export function inLineTransaction<T>(db: Kysely<Database>, log: Logger, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  const postgres = isPostgres(db);
  return inTransactionRetryingOnDeadlock(db, log, async (trx) => {
    if (postgres) await sql`set local synchronous_commit = off`.execute(trx);
    return work(trx);
  });
}

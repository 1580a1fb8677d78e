import { sql } from 'kysely';
import type BetterSqlite3 from 'better-sqlite3';
import type { DatabaseHandle, Db } from '../db/database.js';
import { quoteName } from '../db/quote-name.js';
import { beginBulkWrite, DOCUMENT_CHILD_TABLES, endBulkWrite } from '../modules/catalogue/index.js';
import { ID_TABLES, INSERT_ORDER, type Batch, type IdBase, type TableName } from './batch.js';

// Fast bulk inserts for the demo data and the benchmark dataset: multi-row INSERTs in chunks. On
// SQLite the rows go through the raw better-sqlite3 handle on statements prepared once per shape
// (several times faster than building each INSERT with Kysely); the caller's Kysely transaction
// is open on the same connection, so they are part of it. On PostgreSQL they go through Kysely,
// about 10,000 bound values a statement: the protocol allows 65,535, but the server parses and
// plans very long VALUES lists more slowly per row than several shorter ones.

const SQLITE_ROWS_PER_STATEMENT = 200;
const SQLITE_MAX_VALUES = 30_000;
const POSTGRES_MAX_VALUES = 10_000;

export class BulkWriter {
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly handle: DatabaseHandle) {}

  /** Writes a batch, table by table in foreign-key order. Call inside a transaction. */
  async write(trx: Db, batch: Batch): Promise<void> {
    await beginBulkWrite(this.handle, trx);
    for (const table of INSERT_ORDER) {
      const rows = batch[table] as Record<string, unknown>[] | undefined;
      if (rows === undefined || rows.length === 0) continue;
      if (this.handle.engine === 'sqlite' && this.handle.sqlite) this.writeSqlite(this.handle.sqlite, table, rows);
      else await writePostgres(trx, table, rows);
    }
    await endBulkWrite(this.handle, trx, documentsWritten(batch));
  }

  private writeSqlite(sqlite: BetterSqlite3.Database, table: TableName, rows: Record<string, unknown>[]): void {
    const columns = columnsOf(rows);
    const perStatement = Math.max(1, Math.min(SQLITE_ROWS_PER_STATEMENT, Math.floor(SQLITE_MAX_VALUES / columns.length)));
    const values: unknown[] = [];
    for (let start = 0; start < rows.length; start += perStatement) {
      const chunk = rows.slice(start, start + perStatement);
      values.length = 0;
      for (const row of chunk) {
        for (const column of columns) {
          const value = row[column];
          values.push(value === undefined ? null : typeof value === 'boolean' ? (value ? 1 : 0) : value);
        }
      }
      this.statement(sqlite, table, columns, chunk.length).run(values);
    }
  }

  private statement(sqlite: BetterSqlite3.Database, table: TableName, columns: string[], rowCount: number): BetterSqlite3.Statement {
    // Table and column names come from the code (Batch keys), never from input.
    const key = `${table}|${columns.join(',')}|${rowCount}`;
    let statement = this.statements.get(key);
    if (statement === undefined) {
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      const text = `insert into "${quoteName(table)}" (${columns.map((c) => `"${quoteName(c)}"`).join(', ')}) values ${Array(rowCount).fill(tuple).join(', ')}`;
      statement = sqlite.prepare(text);
      this.statements.set(key, statement);
    }
    return statement;
  }
}

async function writePostgres(trx: Db, table: TableName, rows: Record<string, unknown>[]): Promise<void> {
  const columns = columnsOf(rows);
  const perStatement = Math.max(1, Math.floor(POSTGRES_MAX_VALUES / columns.length));
  for (let start = 0; start < rows.length; start += perStatement) {
    const chunk = rows.slice(start, start + perStatement).map((row) => {
      const full: Record<string, unknown> = {};
      for (const column of columns) full[column] = row[column] ?? null;
      return full;
    });
    // The row types are checked where the batch is built (Batch); here the table is dynamic.
    await trx
      .insertInto(table)
      .values(chunk as never)
      .execute();
  }
}

/** The products whose documents a batch's rows change: its products, their physical books, the children's products. */
function* documentsWritten(batch: Batch): Generator<number> {
  for (const product of batch.product ?? []) {
    yield Number(product.id);
    if (product.physical_book_id != null) yield Number(product.physical_book_id);
  }
  for (const table of DOCUMENT_CHILD_TABLES) for (const row of batch[table] ?? []) yield Number(row.product_id);
}

/** Every column any row sets: rows of one table may leave different optional columns out. */
function columnsOf(rows: Record<string, unknown>[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) columns.add(key);
  return [...columns];
}

/** The first free id of every table the generator numbers itself. */
export async function readIdBase(trx: Db): Promise<IdBase> {
  const base = {} as IdBase;
  for (const table of ID_TABLES) {
    const row = await trx
      .selectFrom(table)
      .select((eb) => eb.fn.max<number | null>(sql.ref(`${table}.id`)).as('max'))
      .executeTakeFirst();
    base[table] = Number(row?.max ?? 0) + 1;
  }
  return base;
}

/**
 * PostgreSQL: moves each id sequence past the ids written explicitly, so the next ordinary
 * insert does not collide. (SQLite's AUTOINCREMENT follows explicit ids by itself.)
 */
export async function syncSequences(handle: DatabaseHandle, trx: Db): Promise<void> {
  if (handle.engine !== 'postgres') return;
  for (const table of ID_TABLES) {
    await sql`select setval(pg_get_serial_sequence(${table}, 'id'), m.max_id)
      from (select max(id) as max_id from ${sql.table(table)}) m
      where m.max_id is not null
        and m.max_id > coalesce(pg_sequence_last_value(pg_get_serial_sequence(${table}, 'id')::regclass), 0)`.execute(trx);
  }
}

/** PostgreSQL: other writers wait until the demo rows and the moved sequences are committed. */
export async function lockIdTables(handle: DatabaseHandle, trx: Db): Promise<void> {
  if (handle.engine !== 'postgres') return;
  await sql`lock table ${sql.join(ID_TABLES.map((table) => sql.table(table)))} in exclusive mode`.execute(trx);
}

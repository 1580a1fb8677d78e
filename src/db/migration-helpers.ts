import { PostgresAdapter, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

/** The column type of an auto-numbered integer primary key on this engine. */
export function idType(db: Kysely<unknown>): 'bigserial' | 'integer' {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'bigserial' : 'integer';
}

/** With idType(db): `.addColumn('id', idType(db), idColumn(db))`. */
export function idColumn(db: Kysely<unknown>) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return (column: ColumnDefinitionBuilder) => (postgres ? column.primaryKey() : column.primaryKey().autoIncrement());
}

import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// Indexes for cold catalogue reads (issue 19):
// - Name-prefix search on authors and publishers (browse.repository.ts, startsWith) compares
//   upper(name) with the upper-cased prefix or lower(name) with the lower-cased one: an index on
//   each expression lets both engines read the names of the prefix instead of every name.
//   PostgreSQL matches LIKE 'prefix%' with text_pattern_ops whatever the database's collation;
//   SQLite's LIKE cannot use an expression index, so the query adds the prefix's byte range there.
// - A publisher's products in the default order (newest first, unknown dates last, then id
//   descending, product-query.ts newest()): page 1 is a range scan of this index without a sort.

const NAMES = ['person', 'publisher'] as const;
const NEWEST = sql`publisher_id, (case when released_at is null then 1 else 0 end), released_at desc, id desc`;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const ops = postgres ? sql` text_pattern_ops` : sql``;
  for (const table of NAMES) {
    for (const fold of ['upper', 'lower'] as const) {
      await sql`create index ${sql.id(`${table}_name_${fold}_idx`)} on ${sql.table(table)} ((${sql.raw(fold)}(name))${ops})`.execute(db);
    }
  }
  await sql`create index product_publisher_newest_idx on product (${NEWEST})`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('product_publisher_newest_idx').execute();
  for (const table of NAMES) for (const fold of ['upper', 'lower']) await db.schema.dropIndex(`${table}_name_${fold}_idx`).execute();
}

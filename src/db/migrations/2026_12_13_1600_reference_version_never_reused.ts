import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// A version of catalogue_reference_version (migrations 1640, 2026_11_27_1300, 2026_12_12_1110) never
// takes a value a reader could have seen before, on PostgreSQL. An import's line commits with
// synchronous_commit off (catalogue-import/write.repository.ts): a crash of the server (or a failover
// to a replica, a point-in-time restore) can lose a commit that readers already saw, its bump with
// it. Bumped as `version + 1`, the next change then gave the lost number again, to other data, and a
// process that kept products (basket-product-cache.ts) or a tree (reference-cache.ts) under that
// number kept them (a basket's products up to CATALOGUE_CACHE_TTL_MS, the trees up to a minute). Readers compare versions for
// equality only, so any new value will do: a bump now sets the greater of version + 1 and the
// server's clock in microseconds since 1970 (about 1.8e15, within a JavaScript number's exact
// integers until the year 2255; the column is a bigint). The first bump after this migration jumps
// to the clock; each after it to the clock again (one commit holds the row, so the clock has moved
// on), or one more if it has not. A lost bump's value was at most its own moment's clock, which a
// bump after the restart has passed. That holds while the server's clock does not go back past the
// lost commit (a failover to a server whose clock is behind by more than the failover took).
//
// SQLite is unchanged: its commits are durable when a process crashes (WAL, synchronous NORMAL), and
// the power loss or system crash that can lose the last of them ends every process of the file's
// one machine, with what they kept.
//
// Rolling-safe: CREATE OR REPLACE FUNCTION changes only the triggers' functions (no table lock, no
// rewrite); a process of the release before reads the versions as this one does. A writer committing
// meanwhile bumps by the function as it finds it at its commit, either is fine.

/** The functions of the triggers that bump each version (the no-op catalogue_price_bump of 2026_12_12_1110 stays). */
const BUMPS: Array<[fn: string, name: 'category' | 'binding' | 'price']> = [
  ['catalogue_reference_bump_category', 'category'],
  ['catalogue_reference_bump_category_name', 'category'],
  ['catalogue_reference_bump_binding_name', 'binding'],
  ['catalogue_price_bump_at_commit', 'price'],
];

const NEXT = `greatest(version + 1, (extract(epoch from clock_timestamp()) * 1000000)::bigint)`;

const bumpFunction = (fn: string, name: string, next: string) =>
  `create or replace function ${fn}() returns trigger language plpgsql as $$ begin ` +
  `update catalogue_reference_version set version = ${next} where name = '${name}'; return null; end $$`;

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [fn, name] of BUMPS) await sql.raw(bumpFunction(fn, name, NEXT)).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [fn, name] of BUMPS) await sql.raw(bumpFunction(fn, name, 'version + 1')).execute(db);
}

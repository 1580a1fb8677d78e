import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// The 'price' version (migration 2026_11_27_1300) moves at the writer's commit on PostgreSQL, no
// longer at its first write. Moved by a statement trigger, the one row of catalogue_reference_version
// stayed locked from a writer's first price write to its commit, so every other writer of prices
// waited that long: a one-line prices import or a new product waited for a whole campaign line (about
// 20 s at 100,000 prices). Now the first watched row change of a transaction queues one deferred
// constraint trigger (its WHEN marks the transaction in a transaction-local setting, so the others
// queue none), and that trigger moves the version when the transaction commits: the row is held only
// while a writer commits, and two writers' bumps follow each other (read committed: the second adds
// to the first's). The version still changes in the same commit as the data, so a reader that read
// the old version before the commit (and kept what it read under it) loads again at its next read,
// as before: basket-product-cache.ts. A savepoint rolled back takes its mark with it (settings are
// rolled back with it), so a later change queues the bump again.
//
// A product row now moves the version only when a watched value changed (as on SQLite): a full
// product feed that rewrites the same values no longer moves it. SQLite is unchanged (one writer).
//
// Rolling-safe: the application reads and writes as before; only the triggers change, in this
// migration's one transaction. Creating a trigger waits for the tables' writers in flight (share row
// exclusive: reads go on) and makes the next writers wait for this commit. The old statement
// triggers are not dropped (that takes an access exclusive lock on product, which every read of the
// catalogue would queue behind): their function does nothing from this commit on. A writer of the
// release before writes through the same triggers.

const PRODUCT_COLUMNS = [
  'shop_price_cents',
  'original_price_cents',
  'wholesale_price_cents',
  'vat_rate_percent',
  'type',
  'is_active',
  'hidden_web',
  'hidden_business',
  'availability',
  'delivery_time',
];
const WHOLE_TABLES = ['campaign', 'campaign_price', 'product_store'];
const BUMP = `update catalogue_reference_version set version = version + 1 where name = 'price';`;

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // True once per transaction, for the first change given as `changed`: the trigger queued then is the
  // transaction's one bump. Plain SQL, so it is inlined into each WHEN (evaluated for every row a
  // statement changes, a campaign line's 100,000 prices too) rather than a PL/pgSQL call per row.
  // CASE, so that the mark is set only when the trigger is queued.
  await sql
    .raw(
      `create function catalogue_price_bump_queued(changed boolean) returns boolean language sql volatile as $$
        select case when changed and coalesce(current_setting('storefront.price_bump_queued', true), '') <> 'on'
          then set_config('storefront.price_bump_queued', 'on', true) = 'on' else false end $$`,
    )
    .execute(db);
  await sql
    .raw(`create function catalogue_price_bump_at_commit() returns trigger language plpgsql as $$ begin ${BUMP} return null; end $$`)
    .execute(db);
  const changed = PRODUCT_COLUMNS.map((column) => `old.${column} is distinct from new.${column}`).join(' or ');
  await sql
    .raw(
      `create constraint trigger catalogue_price_bump_at_commit_product after update of ${PRODUCT_COLUMNS.join(', ')} on product
        deferrable initially deferred for each row when (catalogue_price_bump_queued(${changed}))
        execute function catalogue_price_bump_at_commit()`,
    )
    .execute(db);
  for (const table of WHOLE_TABLES)
    await sql
      .raw(
        `create constraint trigger catalogue_price_bump_at_commit_${table} after insert or update or delete on ${table}
          deferrable initially deferred for each row when (catalogue_price_bump_queued(true))
          execute function catalogue_price_bump_at_commit()`,
      )
      .execute(db);
  // The old statement triggers (migration 2026_11_27_1300) stay, doing nothing.
  await sql
    .raw(`create or replace function catalogue_price_bump() returns trigger language plpgsql as $$ begin return null; end $$`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql
    .raw(`create or replace function catalogue_price_bump() returns trigger language plpgsql as $$ begin ${BUMP} return null; end $$`)
    .execute(db);
  for (const table of ['product', ...WHOLE_TABLES])
    await sql.raw(`drop trigger if exists catalogue_price_bump_at_commit_${table} on ${table}`).execute(db);
  await sql.raw('drop function if exists catalogue_price_bump_at_commit()').execute(db);
  await sql.raw('drop function if exists catalogue_price_bump_queued(boolean)').execute(db);
}

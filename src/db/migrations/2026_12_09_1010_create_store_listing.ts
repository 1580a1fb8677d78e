import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// A store's whole product list (GET /product without a filter) read from an index instead of counted
// per request (issue 19): counting every visible product of a 200,000-product store took ~300 ms on
// PostgreSQL. store_listing holds one row per store, audience (R public catalogue, B business one) and
// product the audience sees in the store (active, in its assortment, not hidden from the audience), keyed
// in the lists' default order (released_at descending, unknown dates last, then id descending): a page is
// a range of its primary key, and the list's total a count over that range (an index-only scan of a
// narrow table). No row is shared by two products: a kept total per store (v1 of this change) made two
// writers of products of two stores, in opposite orders, deadlock on the totals (40P01), and serialised
// every visibility change. Triggers refresh a product's rows in the writer's transaction when the product
// or its stores change; the refresh recomputes them from what is there now, so the order in which a
// cascade (product -> product_store) fires the triggers does not matter. On PostgreSQL a bulk write skips
// them and refreshes its products at its end (bulk-write.ts).

const UNKNOWN_RELEASE = '-9223372036854775808';

/** pg_advisory_xact_lock's first key of the product documents' refresh (migration 2026_11_24_1600): one lock per product. */
const DOCUMENT_LOCK_SPACE = 1_600_024;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // A running release may write products meanwhile: a change committed after the build read product and before the
  // triggers were there would be in no row, and nothing makes the list stale. Writers wait until the migration's
  // transaction (Kysely's Migrator runs them in one) commits; readers do not (share mode).
  if (postgres) await sql`lock table product, product_store in share mode`.execute(db);
  await db.schema
    .createTable('store_listing')
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addColumn('audience', 'char(1)', (c) => c.notNull())
    .addColumn('newest_key', 'bigint', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('store_listing_pk', ['store_code', 'audience', 'newest_key', 'product_id'])
    .modifyEnd(postgres ? sql`` : sql`without rowid`)
    .execute();
  // The first build, before the triggers' index: one sorted load of the primary key.
  await sql.raw(`insert into store_listing (store_code, audience, newest_key, product_id) ${listedRows('', postgres)}`).execute(db);
  await db.schema.createIndex('store_listing_product_idx').on('store_listing').columns(['product_id']).execute();
  // The planner's statistics now; the visibility map that lets the total skip the table comes with the first
  // autovacuum (insert-triggered, PostgreSQL 13+): a vacuum cannot run in the migration's transaction.
  if (postgres) await sql`analyze store_listing`.execute(db);
  if (postgres) await postgresTriggers(db);
  else await sqliteTriggers(db);
}

/** The listing rows of the products `where` picks (a condition on p, or '' for all of them). */
function listedRows(where: string, postgres: boolean): string {
  const yes = postgres ? 'true' : '1';
  const no = postgres ? 'false' : '0';
  return `select ps.store_code, a.audience, coalesce(p.released_at, ${UNKNOWN_RELEASE}), p.id
    from product p
    join product_store ps on ps.product_id = p.id
    join (select 'R' as audience union all select 'B') a
      on (a.audience = 'R' and p.hidden_web = ${no}) or (a.audience = 'B' and p.hidden_business = ${no})
    where p.is_active = ${yes} ${where ? `and ${where}` : ''}`;
}

/** The statements that bring the rows of the products `of` picks (a condition on product_id, e.g. `product_id = new.id`) up to date. */
function refreshStatements(of: (column: string) => string, postgres: boolean): string {
  return `
    delete from store_listing where ${of('product_id')};
    insert into store_listing (store_code, audience, newest_key, product_id) ${listedRows(of('p.id'), postgres)};`;
}

const LISTED_COLUMNS = ['is_active', 'hidden_web', 'hidden_business', 'released_at'];

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const refresh = (id: string) => refreshStatements((column) => `${column} = ${id}`, false);
  const changed = LISTED_COLUMNS.map((c) => `old.${c} is not new.${c}`).join(' or ');
  const triggers: Array<[string, string]> = [
    ['store_listing_product_insert', `after insert on product begin ${refresh('new.id')} end`],
    [
      'store_listing_product_update',
      `after update of ${LISTED_COLUMNS.join(', ')} on product when ${changed} begin ${refresh('new.id')} end`,
    ],
    ['store_listing_product_delete', `after delete on product begin ${refresh('old.id')} end`],
    ['store_listing_store_insert', `after insert on product_store begin ${refresh('new.product_id')} end`],
    ['store_listing_store_delete', `after delete on product_store begin ${refresh('old.product_id')} end`],
    ['store_listing_store_update', `after update on product_store begin ${refresh('old.product_id')} ${refresh('new.product_id')} end`],
  ];
  for (const [name, body] of triggers) await sql.raw(`create trigger ${name} ${body}`).execute(db);
}

/** Skipped inside a bulk write, which refreshes its products at its end (migration 2026_11_27_2100, bulk-write.ts). */
const SKIPPED = `if current_setting('storefront.bulk_write', true) = 'on' then return null; end if;`;

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  // The product's lock serialises two writers of one product (as product_document_refresh's does): without it the
  // second's delete would not see the first's new rows, and its insert would meet them.
  await sql
    .raw(
      `create or replace function store_listing_refresh(pid bigint) returns void language plpgsql as $$ begin
        perform pg_advisory_xact_lock(${DOCUMENT_LOCK_SPACE}, (pid % 2147483647)::int);
        ${refreshStatements((column) => `${column} = pid`, true)} end $$`,
    )
    .execute(db);
  // A bulk write's end: its transaction already holds each product's lock (product_document_refresh, in id order).
  await sql
    .raw(
      `create or replace function store_listing_refresh_many(pids bigint[]) returns void language plpgsql as $$ begin
        ${refreshStatements((column) => `${column} = any(pids)`, true)} end $$`,
    )
    .execute(db);
  const fn = async (name: string, body: string) =>
    sql
      .raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin ${SKIPPED} ${body} return null; end $$`)
      .execute(db);
  await fn('store_listing_product_changed', `perform store_listing_refresh(case when tg_op = 'DELETE' then old.id else new.id end);`);
  await fn(
    'store_listing_link_changed',
    `if tg_op <> 'INSERT' then perform store_listing_refresh(old.product_id); end if;
     if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.product_id is distinct from old.product_id) then perform store_listing_refresh(new.product_id); end if;`,
  );
  const changed = LISTED_COLUMNS.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
  const triggers = [
    `store_listing_product_insert after insert on product for each row execute function store_listing_product_changed()`,
    `store_listing_product_update after update of ${LISTED_COLUMNS.join(', ')} on product for each row when (${changed}) execute function store_listing_product_changed()`,
    `store_listing_product_delete after delete on product for each row execute function store_listing_product_changed()`,
    `store_listing_store_changed after insert or update or delete on product_store for each row execute function store_listing_link_changed()`,
  ];
  for (const trigger of triggers) await sql.raw(`create trigger ${trigger}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    for (const [name, table] of [
      ['store_listing_product_insert', 'product'],
      ['store_listing_product_update', 'product'],
      ['store_listing_product_delete', 'product'],
      ['store_listing_store_changed', 'product_store'],
    ])
      await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
    for (const name of ['store_listing_product_changed', 'store_listing_link_changed'])
      await sql.raw(`drop function if exists ${name}()`).execute(db);
    await sql`drop function if exists store_listing_refresh(bigint)`.execute(db);
    await sql`drop function if exists store_listing_refresh_many(bigint[])`.execute(db);
  } else {
    const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'trigger' and name like 'store_listing_%'`.execute(
      db,
    );
    for (const row of rows.rows) await sql.raw(`drop trigger ${row.name}`).execute(db);
  }
  await db.schema.dropTable('store_listing').execute();
}

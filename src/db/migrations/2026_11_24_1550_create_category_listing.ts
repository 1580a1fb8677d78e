import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// A category's product list read from an index instead of counted and sorted per request (issue 19).
// - category_subtree: (ancestor, category) for every category of a store's shown tree (active, under
//   active parents) and each category at or below it: what GET /category/:id/products lists.
// - category_listing: one row per category, audience (R public catalogue, B business one) and product
//   the audience sees in the category's subtree and store, keyed in the lists' default order (newest:
//   released_at descending, unknown dates last, then id descending), so page 1 is a range scan.
// - category_listing_count: how many rows each (category, audience) has: the list's total.
// Triggers keep the listing and the counts exact in the writer's own transaction when a product, its
// categories or its stores change. The subtree changes only with the category tree, which a trigger
// cannot walk (no recursion in SQLite triggers): a category change bumps category_listing_state.version,
// and readers use the listing only while built_version equals it; the catalogue rebuilds it
// (src/modules/catalogue/browse/category-listing.repository.ts). This migration builds it for the
// catalogue already there, so the first list after a deploy does not have to.

/** Sorts after every real release date in descending order: unknown dates come last, as in the lists. */
export const UNKNOWN_RELEASE = '-9223372036854775808';

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('category_subtree')
    .addColumn('ancestor_id', 'bigint', (c) => c.notNull())
    .addColumn('category_id', 'bigint', (c) => c.notNull())
    .addColumn('store_code', 'varchar(16)', (c) => c.notNull())
    .addPrimaryKeyConstraint('category_subtree_pk', ['category_id', 'ancestor_id'])
    .execute();
  await db.schema
    .createTable('category_listing')
    .addColumn('category_id', 'bigint', (c) => c.notNull())
    .addColumn('audience', 'char(1)', (c) => c.notNull())
    .addColumn('newest_key', 'bigint', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('category_listing_pk', ['category_id', 'audience', 'newest_key', 'product_id'])
    .modifyEnd(postgres ? sql`` : sql`without rowid`)
    .execute();
  await db.schema.createIndex('category_listing_product_idx').on('category_listing').columns(['product_id']).execute();
  await db.schema
    .createTable('category_listing_count')
    .addColumn('category_id', 'bigint', (c) => c.notNull())
    .addColumn('audience', 'char(1)', (c) => c.notNull())
    .addColumn('products', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('category_listing_count_pk', ['category_id', 'audience'])
    .execute();
  await db.schema
    .createTable('category_listing_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('built_version', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into category_listing_state (id, version, built_version) values (1, 1, 0)`.execute(db);
  if (postgres) await postgresTriggers(db);
  else await sqliteTriggers(db);
  await buildListing(db, postgres);
}

/** The first build, from the tree and products there are (the same statements as the catalogue's rebuild, as of this migration). */
async function buildListing(db: Kysely<any>, postgres: boolean): Promise<void> {
  const yes = postgres ? 'true' : '1';
  const no = postgres ? 'false' : '0';
  await sql
    .raw(
      `insert into category_subtree (ancestor_id, category_id, store_code)
      with recursive reach(id, store_code) as (
        select id, store_code from category where is_active = ${yes} and parent_id is null
        union all
        select c.id, c.store_code from category c join reach r on c.parent_id = r.id where c.is_active = ${yes} and c.store_code = r.store_code
      ), sub(ancestor_id, category_id, store_code) as (
        select id, id, store_code from reach
        union all
        select s.ancestor_id, c.id, s.store_code from sub s join category c on c.parent_id = s.category_id
          where c.is_active = ${yes} and c.store_code = s.store_code
      )
      select ancestor_id, category_id, store_code from sub`,
    )
    .execute(db);
  await sql
    .raw(
      `insert into category_listing (category_id, audience, newest_key, product_id)
      select distinct s.ancestor_id, a.audience, coalesce(p.released_at, ${UNKNOWN_RELEASE}), p.id
      from product p
      join product_category pc on pc.product_id = p.id
      join category_subtree s on s.category_id = pc.category_id
      join product_store ps on ps.product_id = p.id and ps.store_code = s.store_code
      join (select 'R' as audience union all select 'B') a
        on (a.audience = 'R' and p.hidden_web = ${no}) or (a.audience = 'B' and p.hidden_business = ${no})
      where p.is_active = ${yes}`,
    )
    .execute(db);
  await sql`insert into category_listing_count (category_id, audience, products)
    select category_id, audience, count(*) from category_listing group by category_id, audience`.execute(db);
  await sql`update category_listing_state set built_version = version where id = 1`.execute(db);
}

/** The statements that bring one product's listing rows and the counts they feed up to date. */
export function refreshProduct(id: string, postgres: boolean): string {
  const no = postgres ? 'false' : '0';
  const yes = postgres ? 'true' : '1';
  const ofProduct = `select 1 from category_listing l where l.product_id = ${id}
    and l.category_id = category_listing_count.category_id and l.audience = category_listing_count.audience`;
  const insertCount = postgres
    ? `insert into category_listing_count (category_id, audience, products) select category_id, audience, 0 from category_listing where product_id = ${id} on conflict do nothing;`
    : `insert or ignore into category_listing_count (category_id, audience, products) select category_id, audience, 0 from category_listing where product_id = ${id};`;
  return `
    update category_listing_count set products = products - 1 where exists (${ofProduct});
    delete from category_listing where product_id = ${id};
    insert into category_listing (category_id, audience, newest_key, product_id)
      select distinct s.ancestor_id, a.audience, coalesce(p.released_at, ${UNKNOWN_RELEASE}), p.id
      from product p
      join product_category pc on pc.product_id = p.id
      join category_subtree s on s.category_id = pc.category_id
      join product_store ps on ps.product_id = p.id and ps.store_code = s.store_code
      join (select 'R' as audience union all select 'B') a
        on (a.audience = 'R' and p.hidden_web = ${no}) or (a.audience = 'B' and p.hidden_business = ${no})
      where p.id = ${id} and p.is_active = ${yes};
    ${insertCount}
    update category_listing_count set products = products + 1 where exists (${ofProduct});`;
}

const LISTED_COLUMNS = ['is_active', 'hidden_web', 'hidden_business', 'released_at'];
const TREE_COLUMNS = ['parent_id', 'is_active', 'store_code'];
const BUMP = 'update category_listing_state set version = version + 1 where id = 1;';

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const refresh = (id: string) => refreshProduct(id, false);
  const changed = (columns: string[]) => columns.map((c) => `old.${c} is not new.${c}`).join(' or ');
  const triggers: Array<[string, string]> = [
    ['category_listing_product_insert', `after insert on product begin ${refresh('new.id')} end`],
    [
      'category_listing_product_update',
      `after update of ${LISTED_COLUMNS.join(', ')} on product when ${changed(LISTED_COLUMNS)} begin ${refresh('new.id')} end`,
    ],
    ['category_listing_product_delete', `after delete on product begin ${refresh('old.id')} end`],
    ['category_listing_category_insert', `after insert on product_category begin ${refresh('new.product_id')} end`],
    ['category_listing_category_delete', `after delete on product_category begin ${refresh('old.product_id')} end`],
    [
      'category_listing_category_update',
      `after update on product_category begin ${refresh('old.product_id')} ${refresh('new.product_id')} end`,
    ],
    ['category_listing_store_insert', `after insert on product_store begin ${refresh('new.product_id')} end`],
    ['category_listing_store_delete', `after delete on product_store begin ${refresh('old.product_id')} end`],
    ['category_listing_store_update', `after update on product_store begin ${refresh('old.product_id')} ${refresh('new.product_id')} end`],
    ['category_listing_tree_insert', `after insert on category begin ${BUMP} end`],
    [
      'category_listing_tree_update',
      `after update of ${TREE_COLUMNS.join(', ')} on category when ${changed(TREE_COLUMNS)} begin ${BUMP} end`,
    ],
    ['category_listing_tree_delete', `after delete on category begin ${BUMP} end`],
  ];
  for (const [name, body] of triggers) await sql.raw(`create trigger ${name} ${body}`).execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  await sql
    .raw(
      `create or replace function category_listing_refresh(pid bigint) returns void language plpgsql as $$ begin ${refreshProduct('pid', true)} end $$`,
    )
    .execute(db);
  const fn = async (name: string, body: string) =>
    sql.raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`).execute(db);
  await fn('category_listing_product_changed', `perform category_listing_refresh(case when tg_op = 'DELETE' then old.id else new.id end);`);
  await fn(
    'category_listing_link_changed',
    `if tg_op <> 'INSERT' then perform category_listing_refresh(old.product_id); end if;
     if tg_op <> 'DELETE' then perform category_listing_refresh(new.product_id); end if;`,
  );
  await fn('category_listing_tree_changed', BUMP);
  const changed = (columns: string[]) => columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
  const triggers = [
    `category_listing_product_insert after insert on product for each row execute function category_listing_product_changed()`,
    `category_listing_product_update after update of ${LISTED_COLUMNS.join(', ')} on product for each row when (${changed(LISTED_COLUMNS)}) execute function category_listing_product_changed()`,
    `category_listing_product_delete after delete on product for each row execute function category_listing_product_changed()`,
    `category_listing_category_changed after insert or update or delete on product_category for each row execute function category_listing_link_changed()`,
    `category_listing_store_changed after insert or update or delete on product_store for each row execute function category_listing_link_changed()`,
    `category_listing_tree_insert after insert or delete on category for each statement execute function category_listing_tree_changed()`,
    `category_listing_tree_update after update of ${TREE_COLUMNS.join(', ')} on category for each row when (${changed(TREE_COLUMNS)}) execute function category_listing_tree_changed()`,
  ];
  for (const trigger of triggers) await sql.raw(`create trigger ${trigger}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    for (const [name, table] of [
      ['category_listing_product_insert', 'product'],
      ['category_listing_product_update', 'product'],
      ['category_listing_product_delete', 'product'],
      ['category_listing_category_changed', 'product_category'],
      ['category_listing_store_changed', 'product_store'],
      ['category_listing_tree_insert', 'category'],
      ['category_listing_tree_update', 'category'],
    ])
      await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
    for (const name of ['category_listing_product_changed', 'category_listing_link_changed', 'category_listing_tree_changed'])
      await sql.raw(`drop function if exists ${name}()`).execute(db);
    await sql`drop function if exists category_listing_refresh(bigint)`.execute(db);
  } else {
    const rows = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'trigger' and name like 'category_listing_%'`.execute(db);
    for (const row of rows.rows) await sql.raw(`drop trigger ${row.name}`).execute(db);
  }
  for (const table of ['category_listing_state', 'category_listing_count', 'category_listing', 'category_subtree'])
    await db.schema.dropTable(table).execute();
}

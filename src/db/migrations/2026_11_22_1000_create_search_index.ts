import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// The search index (src/modules/search). Three parts:
// - search_product: a narrow copy of the product columns that search filters and sorts on, plus
//   the stores the product is sold in. Triggers keep it exact in the writer's own transaction, so
//   a search reads one small row per match instead of the wide product row.
// - the text index (FTS5 tables on SQLite; tsvector and trigram columns on PostgreSQL): folded
//   text of products (title, tags, persons, publisher, series) and of person, publisher and series
//   names. Folding happens in the application, so the triggers only note what changed in
//   search_pending (one small insert per change, in the writer's transaction: never lost, cheap
//   for a 200,000-line import); the search module folds those rows into the index.
// - search_state: 'ready', or 'building' while the index is rebuilt (searches answer 503).
// Everything that exists when this runs is queued, and the state is 'building' until it is folded.

const MIRRORED = [
  'is_active',
  'hidden_web',
  'hidden_business',
  'type',
  'language',
  'binding_code',
  'publisher_id',
  'series_id',
  'availability',
  'delivery_time',
  'shop_price_cents',
  'original_price_cents',
  'wholesale_price_cents',
  'vat_rate_percent',
  'discount_percent',
  'sales_count',
  'released_at',
  'name',
] as const;
const TEXT_COLUMNS = ['name', 'alt_names', 'publisher_id', 'series_id'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('search_state')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('changed_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('search_pending')
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    .addColumn('entity_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_pending_pk', ['kind', 'entity_id'])
    .execute();
  // On SQLite `integer primary key` makes the id the rowid: a match is joined by one b-tree lookup.
  await db.schema
    .createTable('search_product')
    .addColumn('id', postgres ? 'bigint' : 'integer', (c) => c.primaryKey())
    .addColumn('stores', 'varchar(200)', (c) => c.notNull().defaultTo(''))
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('hidden_web', 'boolean', (c) => c.notNull())
    .addColumn('hidden_business', 'boolean', (c) => c.notNull())
    .addColumn('type', 'varchar(24)', (c) => c.notNull())
    .addColumn('language', 'varchar(8)')
    .addColumn('binding_code', 'varchar(32)')
    .addColumn('publisher_id', 'bigint')
    .addColumn('series_id', 'bigint')
    .addColumn('availability', 'varchar(32)', (c) => c.notNull())
    .addColumn('delivery_time', 'varchar(24)')
    .addColumn('shop_price_cents', 'integer', (c) => c.notNull())
    .addColumn('original_price_cents', 'integer')
    .addColumn('wholesale_price_cents', 'integer')
    .addColumn('vat_rate_percent', 'double precision', (c) => c.notNull())
    .addColumn('discount_percent', 'integer', (c) => c.notNull())
    .addColumn('sales_count', 'integer', (c) => c.notNull())
    .addColumn('released_at', 'bigint')
    .addColumn('name', 'varchar(500)', (c) => c.notNull())
    .execute();
  // Autocomplete asks whether a publisher or series has a visible product.
  await db.schema.createIndex('search_product_publisher_idx').on('search_product').column('publisher_id').execute();
  await db.schema.createIndex('search_product_series_idx').on('search_product').column('series_id').execute();

  if (postgres) await postgresIndex(db);
  else await sqliteIndex(db);

  const copied = MIRRORED.join(', ');
  await sql
    .raw(
      `insert into search_product (id, stores, ${copied}) select p.id, ${storesOf('p.id', postgres)}, ${MIRRORED.map((c) => `p.${c}`).join(', ')} from product p`,
    )
    .execute(db);
  for (const [kind, table] of [
    ['product', 'product'],
    ['person', 'person'],
    ['publisher', 'publisher'],
    ['series', 'series'],
  ] as const) {
    await sql.raw(`insert into search_pending (kind, entity_id) select '${kind}', id from ${table}`).execute(db);
  }
  const queued = await sql<{ n: number }>`select count(*) as n from search_pending`.execute(db);
  const status = Number(queued.rows[0]?.n ?? 0) > 0 ? 'building' : 'ready';
  await db.insertInto('search_state').values({ id: 1, status, changed_at: Date.now() }).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    const { functions, triggers } = postgresTriggers();
    for (const { table, name } of triggers) await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
    for (const [name] of functions) await sql.raw(`drop function if exists ${name}()`).execute(db);
    await db.schema.dropTable('search_name').execute();
    await db.schema.dropTable('search_document').execute();
  } else {
    for (const [name] of sqliteTriggers()) await sql.raw(`drop trigger if exists ${name}`).execute(db);
    await sql`drop table search_name_fts`.execute(db);
    await sql`drop table search_product_fts`.execute(db);
  }
  for (const table of ['search_product', 'search_pending', 'search_state']) await db.schema.dropTable(table).execute();
}

const storesOf = (idExpression: string, postgres: boolean) =>
  postgres
    ? `coalesce((select string_agg(ps.store_code, ' ' order by ps.store_code) from product_store ps where ps.product_id = ${idExpression}), '')`
    : `coalesce((select group_concat(ps.store_code, ' ') from product_store ps where ps.product_id = ${idExpression}), '')`;

const changed = (columns: readonly string[], distinct: string) => columns.map((c) => `old.${c} ${distinct} new.${c}`).join(' or ');

// ---- SQLite: FTS5 tables and row triggers ----

/** Selects of the products that show a person's, publisher's or series' name (new.id). */
const NAMING_PRODUCTS: Record<string, string> = {
  person: 'select product_id from product_person where person_id = new.id',
  publisher: 'select id as product_id from product where publisher_id = new.id',
  series: 'select id as product_id from product where series_id = new.id',
};

async function sqliteIndex(db: Kysely<any>): Promise<void> {
  // Documents are folded by the application; remove_diacritics 2 is a second line for any text
  // that reaches the index another way. Prefix indexes serve the 2- and 3-letter prefixes that
  // autocomplete sends most.
  await sql`create virtual table search_product_fts using fts5(title, tags, persons, publisher, series, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`.execute(
    db,
  );
  // rowid = entity id * 4 + kind (1 person, 2 publisher, 3 series).
  await sql`create virtual table search_name_fts using fts5(name, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`.execute(db);
  for (const [name, body] of sqliteTriggers()) await sql.raw(`create trigger ${name} ${body}`).execute(db);
}

function sqliteTriggers(): Array<[string, string]> {
  const pending = (kind: string, id: string) => `insert or ignore into search_pending (kind, entity_id) values ('${kind}', ${id});`;
  const stores = (id: string) => `update search_product set stores = ${storesOf(id, false)} where id = ${id};`;
  const triggers: Array<[string, string]> = [
    [
      'search_product_insert',
      `after insert on product begin
      insert or replace into search_product (id, stores, ${MIRRORED.join(', ')}) values (new.id, ${storesOf('new.id', false)}, ${MIRRORED.map((c) => `new.${c}`).join(', ')});
      ${pending('product', 'new.id')} end`,
    ],
    [
      'search_product_update',
      `after update of ${MIRRORED.join(', ')} on product begin
      update search_product set ${MIRRORED.map((c) => `${c} = new.${c}`).join(', ')} where id = new.id; end`,
    ],
    [
      'search_product_text',
      `after update of ${TEXT_COLUMNS.join(', ')} on product when ${changed(TEXT_COLUMNS, 'is not')} begin
      ${pending('product', 'new.id')} end`,
    ],
    [
      'search_product_delete',
      `after delete on product begin
      delete from search_product where id = old.id; ${pending('product', 'old.id')} end`,
    ],
    ['search_store_insert', `after insert on product_store begin ${stores('new.product_id')} end`],
    ['search_store_delete', `after delete on product_store begin ${stores('old.product_id')} end`],
    ['search_store_update', `after update on product_store begin ${stores('old.product_id')} ${stores('new.product_id')} end`],
    ['search_link_insert', `after insert on product_person begin ${pending('product', 'new.product_id')} end`],
    ['search_link_delete', `after delete on product_person begin ${pending('product', 'old.product_id')} end`],
    [
      'search_link_update',
      `after update on product_person begin ${pending('product', 'old.product_id')} ${pending('product', 'new.product_id')} end`,
    ],
  ];
  for (const [kind, products] of Object.entries(NAMING_PRODUCTS)) {
    triggers.push(
      [`search_${kind}_insert`, `after insert on ${kind} begin ${pending(kind, 'new.id')} end`],
      // Products that show the name change with it; a deletion reaches them through the foreign keys.
      [
        `search_${kind}_rename`,
        `after update of name on ${kind} when old.name is not new.name begin
        ${pending(kind, 'new.id')} insert or ignore into search_pending (kind, entity_id) select 'product', x.product_id from (${products}) x; end`,
      ],
      [`search_${kind}_delete`, `after delete on ${kind} begin ${pending(kind, 'old.id')} end`],
    );
  }
  return triggers;
}

// ---- PostgreSQL: tsvector and trigram columns; statement triggers for bulk writes ----

async function postgresIndex(db: Kysely<any>): Promise<void> {
  // pg_trgm is a trusted extension: a database owner may create it without being a superuser.
  await sql`create extension if not exists pg_trgm`.execute(db);
  await sql`create table search_document (
    product_id bigint primary key,
    document tsvector not null,
    fuzzy text not null
  )`.execute(db);
  await sql`create index search_document_text_idx on search_document using gin (document)`.execute(db);
  await sql`create index search_document_fuzzy_idx on search_document using gin (fuzzy gin_trgm_ops)`.execute(db);
  await sql`create table search_name (
    kind varchar(16) not null,
    entity_id bigint not null,
    name text not null,
    document tsvector not null,
    primary key (kind, entity_id)
  )`.execute(db);
  await sql`create index search_name_text_idx on search_name using gin (document)`.execute(db);
  await sql`create index search_name_fuzzy_idx on search_name using gin (name gin_trgm_ops)`.execute(db);
  const { functions, triggers } = postgresTriggers();
  for (const [name, body] of functions) {
    await sql
      .raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`)
      .execute(db);
  }
  for (const { name, definition, fn } of triggers)
    await sql.raw(`create trigger ${name} ${definition} execute function ${fn}()`).execute(db);
}

interface PostgresTrigger {
  table: string;
  name: string;
  definition: string;
  fn: string;
}

function postgresTriggers(): { functions: Array<[string, string]>; triggers: PostgresTrigger[] } {
  const functions: Array<[string, string]> = [];
  const triggers: PostgresTrigger[] = [];
  const add = (table: string, name: string, definition: string, body: string) => {
    functions.push([name, body]);
    triggers.push({ table, name, definition: `${definition.replace('{table}', table)}`, fn: name });
  };
  const pendingFrom = (kind: string, select: string) => `insert into search_pending (kind, entity_id) ${select} on conflict do nothing;`;
  const storesFor = (ids: string) => `update search_product sp set stores = ${storesOf('sp.id', true)} where sp.id in (${ids});`;
  const onInsert = 'after insert on {table} referencing new table as new_rows for each statement';
  const onDelete = 'after delete on {table} referencing old table as old_rows for each statement';
  const onUpdate = 'after update on {table} referencing old table as old_rows new table as new_rows for each statement';

  // Bulk inserts and deletes (imports, the demo data) fire once per statement with the rows as a table.
  add(
    'product',
    'search_product_inserted',
    onInsert,
    `
    insert into search_product (id, stores, ${MIRRORED.join(', ')})
      select n.id, ${storesOf('n.id', true)}, ${MIRRORED.map((c) => `n.${c}`).join(', ')} from new_rows n
      on conflict (id) do update set stores = excluded.stores, ${MIRRORED.map((c) => `${c} = excluded.${c}`).join(', ')};
    ${pendingFrom('product', "select 'product', id from new_rows")}`,
  );
  add(
    'product',
    'search_product_deleted',
    onDelete,
    `
    delete from search_product where id in (select id from old_rows);
    ${pendingFrom('product', "select 'product', id from old_rows")}`,
  );
  // Updates come one product at a time (imports write only what changed); the column lists keep
  // updates of other columns (stock, ratings, image) from firing at all.
  add(
    'product',
    'search_product_updated',
    `after update of ${MIRRORED.join(', ')} on product for each row`,
    `update search_product set ${MIRRORED.map((c) => `${c} = new.${c}`).join(', ')} where id = new.id;`,
  );
  add(
    'product',
    'search_product_text',
    `after update of ${TEXT_COLUMNS.join(', ')} on product for each row when (${changed(TEXT_COLUMNS, 'is distinct from')})`,
    pendingFrom('product', "select 'product', new.id"),
  );

  add('product_store', 'search_store_inserted', onInsert, storesFor('select product_id from new_rows'));
  add('product_store', 'search_store_deleted', onDelete, storesFor('select product_id from old_rows'));
  add(
    'product_store',
    'search_store_updated',
    onUpdate,
    storesFor('select product_id from old_rows union select product_id from new_rows'),
  );

  add('product_person', 'search_link_inserted', onInsert, pendingFrom('product', "select distinct 'product', product_id from new_rows"));
  add('product_person', 'search_link_deleted', onDelete, pendingFrom('product', "select distinct 'product', product_id from old_rows"));
  add(
    'product_person',
    'search_link_updated',
    onUpdate,
    pendingFrom('product', "select 'product', product_id from old_rows union select 'product', product_id from new_rows"),
  );

  for (const [kind, products] of Object.entries(NAMING_PRODUCTS)) {
    add(kind, `search_${kind}_inserted`, onInsert, pendingFrom(kind, `select '${kind}', id from new_rows`));
    add(kind, `search_${kind}_deleted`, onDelete, pendingFrom(kind, `select '${kind}', id from old_rows`));
    add(
      kind,
      `search_${kind}_renamed`,
      `after update of name on ${kind} for each row when (old.name is distinct from new.name)`,
      `${pendingFrom(kind, `select '${kind}', new.id`)} ${pendingFrom('product', `select distinct 'product', x.product_id from (${products}) x`)}`,
    );
  }
  return { functions, triggers };
}

import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// The product page read as one row (issue 19): product_document holds, per product, what its page
// gathers from a product's child tables (stores, persons with their names, alternative codes,
// category ids, images, campaign prices with their campaigns' terms, the first active e-book
// edition) as one JSON text, the same for every caller, store and language. The product page reads
// the product row, its publisher, series and physical edition and this document with one indexed
// read, and works out visibility, the caller's price, category and shop names at read time.
// Triggers rebuild a product's document in the writer's own transaction whenever one of its inputs
// changes (the product's child rows, a person's name, a campaign's terms, an e-book edition), so
// it is exact after every import, edit and deletion; this migration builds it for the catalogue
// already there. Keys are short: the document is read on every cold product page.
//
//   s  store codes (sorted)                      pe [person id, code, name, role] by position, id
//   ac alternative codes (sorted)                c  category ids (sorted)
//   im [url, width, height] of IMAGE assets by position, id
//   cp [store, customer kind, price cents, valid from, valid to] of active campaigns
//   eb [id, code, name] of the first active e-book of this physical book, or null

/** The document of the product aliased `p`, as a JSON text expression of the engine. */
export function documentBody(postgres: boolean): string {
  if (postgres) {
    const list = (expression: string, from: string, order: string) =>
      `coalesce((select json_agg(${expression} order by ${order}) ${from}), '[]'::json)`;
    return `json_build_object(
      's', ${list('ps.store_code', 'from product_store ps where ps.product_id = p.id', 'ps.store_code')},
      'pe', ${list('json_build_array(pr.id, pr.code, pr.name, pp.role)', 'from product_person pp join person pr on pr.id = pp.person_id where pp.product_id = p.id', 'pp.position, pr.id, pp.role')},
      'ac', ${list('a.code', 'from product_alt_code a where a.product_id = p.id', 'a.code')},
      'c', ${list('pc.category_id', 'from product_category pc where pc.product_id = p.id', 'pc.category_id')},
      'im', ${list('json_build_array(i.url, i.width, i.height)', "from product_asset i where i.product_id = p.id and i.kind = 'IMAGE'", 'i.position, i.id')},
      'cp', ${list('json_build_array(cm.store_code, cp.customer_kind, cp.price_cents, cm.valid_from, cm.valid_to)', 'from campaign_price cp join campaign cm on cm.id = cp.campaign_id where cp.product_id = p.id and cm.is_active = true', 'cm.id, cp.customer_kind')},
      'eb', (select json_build_array(e.id, e.code, e.name) from product e
        where e.physical_book_id = p.id and e.type = 'EBOOK' and e.is_active = true order by e.id limit 1)
    )::text`;
  }
  // A subquery's result loses SQLite's JSON subtype: json() gives it back, so it nests as JSON and not as a string.
  const list = (expression: string, from: string, order: string) =>
    `json((select json_group_array(${expression}) from (select * ${from} order by ${order})))`;
  return `json_object(
    's', ${list('store_code', 'from product_store ps where ps.product_id = p.id', 'store_code')},
    'pe', ${list('json_array(id, code, name, role)', 'from (select pr.id, pr.code, pr.name, pp.role, pp.position from product_person pp join person pr on pr.id = pp.person_id where pp.product_id = p.id)', 'position, id, role')},
    'ac', ${list('code', 'from product_alt_code a where a.product_id = p.id', 'code')},
    'c', ${list('category_id', 'from product_category pc where pc.product_id = p.id', 'category_id')},
    'im', ${list('json_array(url, width, height)', "from product_asset i where i.product_id = p.id and i.kind = 'IMAGE'", 'position, id')},
    'cp', ${list('json_array(store_code, customer_kind, price_cents, valid_from, valid_to)', 'from (select cm.store_code, cp.customer_kind, cp.price_cents, cm.valid_from, cm.valid_to, cm.id from campaign_price cp join campaign cm on cm.id = cp.campaign_id where cp.product_id = p.id and cm.is_active = 1)', 'id, customer_kind')},
    'eb', json((select json_array(e.id, e.code, e.name) from product e
      where e.physical_book_id = p.id and e.type = 'EBOOK' and e.is_active = 1 order by e.id limit 1))
  )`;
}

/** SQLite's statements that bring the documents of the products `where` selects (over `p`) up to date. */
function refreshDocuments(where: string): string {
  return `delete from product_document where product_id in (select p.id from product p where ${where});
    insert into product_document (product_id, body) select p.id, ${documentBody(false)} from product p where ${where};`;
}

/** One product's refresh (its id an expression such as `new.product_id`); a null id refreshes nothing. */
function refreshOne(id: string, postgres: boolean): string {
  return `delete from product_document where product_id = ${id};
    insert into product_document (product_id, body) select p.id, ${documentBody(postgres)} from product p where p.id = ${id};`;
}

/** pg_advisory_xact_lock's first key for product documents (any constant no other lock uses). */
const DOCUMENT_LOCK_SPACE = 1_600_024;

/** Child tables whose rows are a product's document inputs, each keyed by product_id. */
const CHILD_TABLES = ['product_store', 'product_person', 'product_alt_code', 'product_category', 'product_asset', 'campaign_price'];
/** Columns of a product another product's document shows (an e-book in its physical book's). */
const EDITION_COLUMNS = ['physical_book_id', 'type', 'is_active', 'code', 'name'];
const PERSON_COLUMNS = ['code', 'name'];
const CAMPAIGN_COLUMNS = ['store_code', 'is_active', 'valid_from', 'valid_to'];

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable('product_document')
    .addColumn('product_id', 'bigint', (c) => c.primaryKey())
    .addColumn('body', 'text', (c) => c.notNull())
    .execute();
  // A running release may write the catalogue meanwhile: a change committed after the build read it and before the
  // triggers were there would be in no document until its product is written again. Writers of the documents' inputs
  // wait until the migration's transaction (Kysely's Migrator runs them in one) commits; readers do not (share mode).
  if (postgres) await sql.raw(`lock table product, ${CHILD_TABLES.join(', ')}, person, campaign in share mode`).execute(db);
  await sql.raw(`insert into product_document (product_id, body) select p.id, ${documentBody(postgres)} from product p`).execute(db);
  if (postgres) await postgresTriggers(db);
  else await sqliteTriggers(db);
}

async function sqliteTriggers(db: Kysely<any>): Promise<void> {
  const one = (id: string) => refreshOne(id, false);
  const changed = (columns: string[]) => columns.map((c) => `old.${c} is not new.${c}`).join(' or ');
  const ofPerson = (id: string) => refreshDocuments(`p.id in (select product_id from product_person where person_id = ${id})`);
  const ofCampaign = (id: string) => refreshDocuments(`p.id in (select product_id from campaign_price where campaign_id = ${id})`);
  const triggers: Array<[string, string]> = [
    ['product_document_product_insert', `after insert on product begin ${one('new.id')} ${one('new.physical_book_id')} end`],
    [
      'product_document_product_update',
      `after update of ${EDITION_COLUMNS.join(', ')} on product when ${changed(EDITION_COLUMNS)}
        begin ${one('old.physical_book_id')} ${one('new.physical_book_id')} end`,
    ],
    ['product_document_product_delete', `after delete on product begin ${one('old.id')} ${one('old.physical_book_id')} end`],
    [
      'product_document_person_update',
      `after update of ${PERSON_COLUMNS.join(', ')} on person when ${changed(PERSON_COLUMNS)} begin ${ofPerson('new.id')} end`,
    ],
    [
      'product_document_campaign_update',
      `after update of ${CAMPAIGN_COLUMNS.join(', ')} on campaign when ${changed(CAMPAIGN_COLUMNS)} begin ${ofCampaign('new.id')} end`,
    ],
  ];
  for (const table of CHILD_TABLES) {
    triggers.push(
      [`product_document_${table}_insert`, `after insert on ${table} begin ${one('new.product_id')} end`],
      [`product_document_${table}_update`, `after update on ${table} begin ${one('old.product_id')} end`],
      // A row moved to another product refreshes that one too (most updates keep the product).
      [
        `product_document_${table}_move`,
        `after update on ${table} when new.product_id is not old.product_id begin ${one('new.product_id')} end`,
      ],
      [`product_document_${table}_delete`, `after delete on ${table} begin ${one('old.product_id')} end`],
    );
  }
  for (const [name, body] of triggers) await sql.raw(`create trigger ${name} ${body}`).execute(db);
}

async function postgresTriggers(db: Kysely<any>): Promise<void> {
  // Under READ COMMITTED two writers of one product's inputs would each rebuild its document from
  // a snapshot without the other's rows (and the second's insert would meet the first's committed
  // row): a transaction-scoped lock per product makes the second wait for the first's commit, and
  // its statements then read what the first wrote. Ids beyond int4 share a lock with another id:
  // harmless, only more waiting.
  await sql
    .raw(
      `create or replace function product_document_refresh(pid bigint) returns void language plpgsql as $$ begin
        perform pg_advisory_xact_lock(${DOCUMENT_LOCK_SPACE}, (pid % 2147483647)::int);
        ${refreshOne('pid', true)} end $$`,
    )
    .execute(db);
  const fn = async (name: string, body: string) =>
    sql.raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`).execute(db);
  await fn(
    'product_document_product_changed',
    `if tg_op <> 'UPDATE' then perform product_document_refresh(case when tg_op = 'DELETE' then old.id else new.id end); end if;
     if tg_op <> 'INSERT' then perform product_document_refresh(old.physical_book_id); end if;
     if tg_op <> 'DELETE' then perform product_document_refresh(new.physical_book_id); end if;`,
  );
  // A new link to a person or a campaign reads that row's name or terms: a share lock waits for a
  // rename or a change of terms in flight to commit (whose own refresh cannot see this link yet).
  await fn(
    'product_document_child_changed',
    `if tg_op <> 'DELETE' and tg_table_name = 'product_person' then perform 1 from person where id = new.person_id for share; end if;
     if tg_op <> 'DELETE' and tg_table_name = 'campaign_price' then perform 1 from campaign where id = new.campaign_id for share; end if;
     if tg_op <> 'INSERT' then perform product_document_refresh(old.product_id); end if;
     if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.product_id is distinct from old.product_id) then perform product_document_refresh(new.product_id); end if;`,
  );
  // Product by product, in id order, through the locked refresh.
  const each = (ids: string) =>
    `perform product_document_refresh(product_id) from (select distinct product_id from ${ids} order by product_id) ids;`;
  await fn('product_document_person_changed', each('product_person where person_id = new.id'));
  await fn('product_document_campaign_changed', each('campaign_price where campaign_id = new.id'));
  const changed = (columns: string[]) => columns.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
  const triggers = [
    `product_document_product_insert after insert or delete on product for each row execute function product_document_product_changed()`,
    `product_document_product_update after update of ${EDITION_COLUMNS.join(', ')} on product for each row when (${changed(EDITION_COLUMNS)}) execute function product_document_product_changed()`,
    `product_document_person_update after update of ${PERSON_COLUMNS.join(', ')} on person for each row when (${changed(PERSON_COLUMNS)}) execute function product_document_person_changed()`,
    `product_document_campaign_update after update of ${CAMPAIGN_COLUMNS.join(', ')} on campaign for each row when (${changed(CAMPAIGN_COLUMNS)}) execute function product_document_campaign_changed()`,
    ...CHILD_TABLES.map(
      (table) =>
        `product_document_${table}_changed after insert or update or delete on ${table} for each row execute function product_document_child_changed()`,
    ),
  ];
  for (const trigger of triggers) await sql.raw(`create trigger ${trigger}`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    const owners: Array<[string, string]> = [
      ['product_document_product_insert', 'product'],
      ['product_document_product_update', 'product'],
      ['product_document_person_update', 'person'],
      ['product_document_campaign_update', 'campaign'],
      ...CHILD_TABLES.map((table): [string, string] => [`product_document_${table}_changed`, table]),
    ];
    for (const [name, table] of owners) await sql.raw(`drop trigger if exists ${name} on ${table}`).execute(db);
    for (const name of ['product_changed', 'child_changed', 'person_changed', 'campaign_changed'])
      await sql.raw(`drop function if exists product_document_${name}()`).execute(db);
    await sql`drop function if exists product_document_refresh(bigint)`.execute(db);
  } else {
    const rows = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'trigger' and name like 'product_document_%'`.execute(db);
    for (const row of rows.rows) await sql.raw(`drop trigger ${row.name}`).execute(db);
  }
  await db.schema.dropTable('product_document').execute();
}

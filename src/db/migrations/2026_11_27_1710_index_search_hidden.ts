import { PostgresAdapter, sql, type Kysely } from 'kysely';

// SQLite: a text search's total was every match's search_product row looked up for the caller's
// visibility (2.5 ms of a common word's 4,000 matches on 200,000 products). Each product document
// now also holds, in a sixth column `hidden`, a word for every store and audience that does not see
// the product (`hr` or `hb`, public or business catalogue, and the store code in hex), so the total
// is FTS5's own count of `<text> NOT hidden : <word>`, which reads no product row (0.7 ms).
// The words are written when a document is folded (src/modules/search/sqlite-engine.ts writes them
// with the same rule, visibility.ts's); a trigger queues a product for folding when what decides
// them changes. Stores are reference data made by migrations: one that adds a store refolds the
// index. This rebuilds the table from the documents already there, so no search waits for a refold.
// PostgreSQL counts its matches in the same pass as the page: nothing changes there.

/** The `hidden` words of search_product `sp`; sqlite-engine.ts's HIDDEN_WORDS is the same rule. */
const HIDDEN_WORDS = `coalesce((select group_concat(word, ' ') from (
  select 'hr' || hex(ws.code) as word from web_store ws
    where not (sp.is_active = 1 and sp.hidden_web = 0 and instr(' ' || sp.stores || ' ', ' ' || ws.code || ' ') > 0)
  union all
  select 'hb' || hex(ws.code) from web_store ws
    where not (sp.is_active = 1 and sp.hidden_business = 0 and instr(' ' || sp.stores || ' ', ' ' || ws.code || ' ') > 0))), '')`;

const VISIBILITY = ['is_active', 'hidden_web', 'hidden_business', 'stores'];

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`create virtual table search_product_fts_next using fts5(title, tags, persons, publisher, series, hidden,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`.execute(db);
  await sql
    .raw(
      `insert into search_product_fts_next (rowid, title, tags, persons, publisher, series, hidden)
      select f.rowid, f.title, f.tags, f.persons, f.publisher, f.series, ${HIDDEN_WORDS}
      from search_product_fts f left join search_product sp on sp.id = f.rowid`,
    )
    .execute(db);
  await sql`insert into search_product_fts_next (search_product_fts_next) values ('optimize')`.execute(db);
  await sql`drop table search_product_fts`.execute(db);
  await sql`alter table search_product_fts_next rename to search_product_fts`.execute(db);
  await sql
    .raw(
      `create trigger search_product_visibility after update of ${VISIBILITY.join(', ')} on search_product
      when ${VISIBILITY.map((c) => `old.${c} is not new.${c}`).join(' or ')} begin
      insert or ignore into search_pending (kind, entity_id) values ('product', new.id); end`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await sql`drop trigger search_product_visibility`.execute(db);
  await sql`create virtual table search_product_fts_before using fts5(title, tags, persons, publisher, series,
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`.execute(db);
  await sql`insert into search_product_fts_before (rowid, title, tags, persons, publisher, series)
    select rowid, title, tags, persons, publisher, series from search_product_fts`.execute(db);
  await sql`drop table search_product_fts`.execute(db);
  await sql`alter table search_product_fts_before rename to search_product_fts`.execute(db);
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';

// SQLite: a text search's total was every match's search_product row looked up for the caller's
// visibility (2.5 ms of a common word's 4,000 matches on 200,000 products). Each product document
// now also holds, in a sixth column `hidden`, a word for every store and audience that does not see
// the product (`0r` or `0b`, public or business catalogue, then the store code in hex: a digit first,
// so no two- or three-letter prefix a shopper types reads them), so the total is FTS5's own count of
// `<text> NOT hidden : <word>`, which reads no product row (0.7 ms). A product without a
// search_product row is hidden everywhere. The words are written when a document is folded
// (src/modules/search/sqlite-engine.ts writes them with the same rule, visibility.ts's); a trigger
// queues the product as a `visibility` change when what decides them changes, which no search waits
// for: while one is queued, totals are counted from the rows. Stores are reference data made by
// migrations: one that adds a store refolds the index. No process of an earlier build may write
// documents after this has run (it would write none of the words). This rebuilds the table from the
// documents already there, in one transaction, so no search waits for a refold and a failed run
// leaves the table as it was. PostgreSQL counts its matches with the page: nothing changes there.
// Edited once after it shipped, to the same table, rows and trigger: it renamed a new table into place,
// which costs every fresh database 114 ms (SQLite checks each trigger and view on a rename).

/** The `hidden` words of search_product `sp`; sqlite-engine.ts's HIDDEN_WORDS is the same rule. */
const HIDDEN_WORDS = `coalesce((select group_concat(word, ' ') from (
  select '0r' || hex(ws.code) as word from web_store ws
    where not coalesce(sp.is_active = 1 and sp.hidden_web = 0 and instr(' ' || sp.stores || ' ', ' ' || ws.code || ' ') > 0, 0)
  union all
  select '0b' || hex(ws.code) from web_store ws
    where not coalesce(sp.is_active = 1 and sp.hidden_business = 0 and instr(' ' || sp.stores || ' ', ' ' || ws.code || ' ') > 0, 0))), '')`;

const VISIBILITY = ['is_active', 'hidden_web', 'hidden_business', 'stores'];

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.transaction().execute(rebuild);
}

async function rebuild(db: Kysely<any>): Promise<void> {
  await recreateIndex(
    db,
    `select f.rowid, f.title, f.tags, f.persons, f.publisher, f.series, ${HIDDEN_WORDS} as hidden
      from search_product_fts f left join search_product sp on sp.id = f.rowid`,
    [...TEXT_COLUMNS, 'hidden'],
  );
  await sql`insert into search_product_fts (search_product_fts) values ('optimize')`.execute(db);
  await sql
    .raw(
      `create trigger search_product_visibility after update of ${VISIBILITY.join(', ')} on search_product
      when ${VISIBILITY.map((c) => `old.${c} is not new.${c}`).join(' or ')} begin
      insert or ignore into search_pending (kind, entity_id) values ('visibility', new.id); end`,
    )
    .execute(db);
}

const TEXT_COLUMNS = ['title', 'tags', 'persons', 'publisher', 'series'];

/**
 * search_product_fts again with `columns`, filled from `rows` (rowid, then the columns). Through a
 * temporary copy, not a new table renamed into place: SQLite checks every trigger and view of the
 * schema on a rename (114 ms on an empty database, which every test app migrates).
 */
async function recreateIndex(db: Kysely<any>, rows: string, columns: string[]): Promise<void> {
  await sql.raw(`create temp table search_product_fts_copy as ${rows}`).execute(db);
  await sql`drop table search_product_fts`.execute(db);
  await sql
    .raw(
      `create virtual table search_product_fts using fts5(${columns.join(', ')},
      tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')`,
    )
    .execute(db);
  await sql.raw(`insert into search_product_fts (rowid, ${columns.join(', ')}) select * from temp.search_product_fts_copy`).execute(db);
  await sql`drop table temp.search_product_fts_copy`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await db.transaction().execute(restore);
}

async function restore(db: Kysely<any>): Promise<void> {
  await sql`drop trigger search_product_visibility`.execute(db);
  // Without the words, a visibility change needs no fold.
  await sql`delete from search_pending where kind = 'visibility'`.execute(db);
  await recreateIndex(db, `select rowid, ${TEXT_COLUMNS.join(', ')} from search_product_fts`, TEXT_COLUMNS);
}

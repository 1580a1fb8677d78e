import { PostgresAdapter, sql, type Kysely } from 'kysely';

// A bookshop's author index is by surname: the letter T lists Tammsaare, and a search for "Kross"
// finds Jaan Kross. Persons kept one name, given names first, and the index filtered and sorted by
// its start. A person now has a sort name, "Surname, Given names" (the catalogue's personSortName:
// the last word first; a name with a comma as it is; a name of one word itself), which the persons
// import may also give for names the rule gets wrong ("Beethoven, Ludwig van").
//
// Every person before this gets the rule's sort name here, in SQL of both engines: the name trimmed
// of spaces, its last word the text after the trimmed name without its last word (rtrim by the set
// of the name's other characters stops at the last space). 201 characters: a name's 200 and the comma.
//
// The indexes mirror the name's (migration 2026_11_24_1641): (sort_name, id) for the list's order, and
// the folded sort name, upper and lower, for the letter and a q prefix (text_pattern_ops on PostgreSQL,
// whose LIKE 'prefix%' reads them whatever the collation; SQLite reads them by the prefix's byte range).
// PostgreSQL holds the column to NOT NULL; SQLite cannot add a column so without a default, and its
// writers are held to it by the table's type.

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

const trimmed = sql`trim(name)`;
const withoutLastWord = sql`rtrim(${trimmed}, replace(${trimmed}, ' ', ''))`;
const sortName = sql`case when ${trimmed} like '%,%' or ${trimmed} not like '% %' then ${trimmed}
  else substr(${trimmed}, length(${withoutLastWord}) + 1) || ', ' || rtrim(${withoutLastWord}, ' ') end`;

const FOLDS = ['upper', 'lower'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema.alterTable('person').addColumn('sort_name', 'varchar(201)').execute();
  await db.updateTable('person').set({ sort_name: sortName }).execute();
  if (postgres) await sql`alter table person alter column sort_name set not null`.execute(db);
  await db.schema.createIndex('person_sort_name_idx').on('person').columns(['sort_name', 'id']).execute();
  const ops = postgres ? sql` text_pattern_ops` : sql``;
  for (const fold of FOLDS) {
    await sql`create index ${sql.id(`person_sort_name_${fold}_idx`)} on person ((${sql.raw(fold)}(sort_name))${ops})`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const fold of FOLDS) await db.schema.dropIndex(`person_sort_name_${fold}_idx`).execute();
  await db.schema.dropIndex('person_sort_name_idx').execute();
  await db.schema.alterTable('person').dropColumn('sort_name').execute();
}

import type { Kysely } from 'kysely';
import { COUNTRIES } from './data/countries-2026-11.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('country')
    .addColumn('code', 'varchar(2)', (c) => c.primaryKey())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('country_name')
    .addColumn('country_code', 'varchar(2)', (c) => c.notNull().references('country.code').onDelete('cascade'))
    .addColumn('language', 'varchar(8)', (c) => c.notNull())
    .addColumn('name', 'varchar(100)', (c) => c.notNull())
    .addPrimaryKeyConstraint('country_name_pk', ['country_code', 'language'])
    .execute();
  // The list is ordered by position, then by the name in the caller's language.
  await db.schema.createIndex('country_position_idx').on('country').columns(['position', 'code']).execute();
  await db.schema.createIndex('country_name_language_idx').on('country_name').columns(['language', 'name']).execute();

  await db
    .insertInto('country')
    .values(COUNTRIES.map(({ code, position }) => ({ code, position })))
    .execute();
  await db
    .insertInto('country_name')
    .values(
      COUNTRIES.flatMap(({ code, names }) => Object.entries(names).map(([language, name]) => ({ country_code: code, language, name }))),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('country_name').execute();
  await db.schema.dropTable('country').execute();
}

import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// A 'price' version in catalogue_reference_version (migration 1640), bumped in the writer's own
// transaction by every change to what a basket line's price and orderability are made of: a
// product's prices, VAT, type, visibility, availability and delivery time, campaigns and their
// prices, and the stores' assortments. A basket keeps its lines' products per process
// (basket-product-cache.ts) only while this version stands, so its prices are worked out from
// current data on every read. Stock is not watched: it changes with every order, and a basket
// write and checkout read it as it is.

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
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`insert into catalogue_reference_version (name, version) values ('price', 1)`.execute(db);
  const columns = PRODUCT_COLUMNS.join(', ');
  if (postgres) {
    await sql
      .raw(`create function catalogue_price_bump() returns trigger language plpgsql as $$ begin ${BUMP} return null; end $$`)
      .execute(db);
    // Once per statement: an import's batch bumps it once.
    await sql
      .raw(
        `create trigger catalogue_price_bump_product after update of ${columns} on product for each statement execute function catalogue_price_bump()`,
      )
      .execute(db);
    for (const table of WHOLE_TABLES)
      await sql
        .raw(
          `create trigger catalogue_price_bump_${table} after insert or update or delete on ${table} for each statement execute function catalogue_price_bump()`,
        )
        .execute(db);
    return;
  }
  // Per row on SQLite (it has no statement triggers), and only when a watched value changed: a full
  // product feed rewrites every row with mostly the same values.
  const changed = PRODUCT_COLUMNS.map((column) => `old.${column} is not new.${column}`).join(' or ');
  await sql
    .raw(`create trigger catalogue_price_product after update of ${columns} on product when ${changed} begin ${BUMP} end`)
    .execute(db);
  for (const table of WHOLE_TABLES)
    for (const event of ['insert', 'update', 'delete'])
      await sql.raw(`create trigger catalogue_price_${table}_${event} after ${event} on ${table} begin ${BUMP} end`).execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    for (const table of ['product', ...WHOLE_TABLES])
      await sql.raw(`drop trigger if exists catalogue_price_bump_${table} on ${table}`).execute(db);
    await sql.raw('drop function if exists catalogue_price_bump()').execute(db);
  } else {
    await sql.raw('drop trigger if exists catalogue_price_product').execute(db);
    for (const table of WHOLE_TABLES)
      for (const event of ['insert', 'update', 'delete'])
        await sql.raw(`drop trigger if exists catalogue_price_${table}_${event}`).execute(db);
  }
  await sql`delete from catalogue_reference_version where name = 'price'`.execute(db);
}

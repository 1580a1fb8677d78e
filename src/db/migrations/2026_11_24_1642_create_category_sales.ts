import { sql, type Kysely } from 'kysely';
import { PostgresAdapter } from 'kysely';

// Recommendations' "best sellers of the same category" (issue 19) read the top of an index instead
// of ranking every product of a category: category_sales holds (category_id, sales_count,
// product_id) for every product_category row, sales_count being the product's. Triggers keep it
// exact in the writer's own transaction when a product's sales count changes and when a product
// joins, leaves or moves between categories (product_category is not touched, so the triggers
// other features keep on it do not fire on a sale).

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // A running release may write meanwhile: a link or sales count committed after the build read it and before the
  // triggers were there would be in no row (or a stale one) until written again. Writers wait until the migration's
  // transaction (Kysely's Migrator runs them in one) commits; readers do not (share mode).
  if (postgres) await sql`lock table product, product_category in share mode`.execute(db);
  await db.schema
    .createTable('category_sales')
    .addColumn('category_id', 'bigint', (c) => c.notNull())
    .addColumn('sales_count', 'integer', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('category_sales_pk', ['category_id', 'sales_count', 'product_id'])
    .modifyEnd(postgres ? sql`` : sql`without rowid`)
    .execute();
  await db.schema.createIndex('category_sales_product_idx').on('category_sales').columns(['product_id', 'category_id']).execute();
  await sql`insert into category_sales (category_id, sales_count, product_id)
    select pc.category_id, p.sales_count, pc.product_id from product_category pc join product p on p.id = pc.product_id`.execute(db);
  const link = (ref: 'new' | 'old') =>
    ref === 'new'
      ? `insert into category_sales (category_id, sales_count, product_id)
           select new.category_id, p.sales_count, new.product_id from product p where p.id = new.product_id;`
      : 'delete from category_sales where product_id = old.product_id and category_id = old.category_id;';
  const sales = 'update category_sales set sales_count = new.sales_count where product_id = new.id;';
  if (postgres) {
    const fn = async (name: string, body: string) =>
      sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`).execute(db);
    // The share lock waits for a sales count change in flight on that product to commit, so the
    // new row copies the count it committed (that change's own update cannot see this link yet).
    await fn(
      'category_sales_link_changed',
      `if tg_op <> 'INSERT' then ${link('old')} end if;
       if tg_op <> 'DELETE' then perform 1 from product where id = new.product_id for share; ${link('new')} end if;`,
    );
    await fn('category_sales_product_changed', sales);
    await sql`create trigger category_sales_link_changed after insert or update or delete on product_category
      for each row execute function category_sales_link_changed()`.execute(db);
    await sql`create trigger category_sales_product_changed after update of sales_count on product
      for each row when (old.sales_count is distinct from new.sales_count) execute function category_sales_product_changed()`.execute(db);
  } else {
    await sql.raw(`create trigger category_sales_link_insert after insert on product_category begin ${link('new')} end`).execute(db);
    await sql.raw(`create trigger category_sales_link_delete after delete on product_category begin ${link('old')} end`).execute(db);
    await sql
      .raw(`create trigger category_sales_link_update after update on product_category begin ${link('old')} ${link('new')} end`)
      .execute(db);
    await sql
      .raw(
        `create trigger category_sales_product_update after update of sales_count on product
         when old.sales_count is not new.sales_count begin ${sales} end`,
      )
      .execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`drop trigger if exists category_sales_link_changed on product_category`.execute(db);
    await sql`drop trigger if exists category_sales_product_changed on product`.execute(db);
    await sql`drop function if exists category_sales_link_changed()`.execute(db);
    await sql`drop function if exists category_sales_product_changed()`.execute(db);
  } else {
    for (const name of ['link_insert', 'link_delete', 'link_update', 'product_update'])
      await sql.raw(`drop trigger if exists category_sales_${name}`).execute(db);
  }
  await db.schema.dropTable('category_sales').execute();
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';

// PostgreSQL keeps a product's document (migration 2026_11_24_1600) and its category listing rows
// (2026_11_24_1550) with row triggers, which rebuild the product's on every child row written: a
// bulk write of a new catalogue rebuilt each product's several times over (the demo's 3,000
// products: 9.5 of their 12.5 s of seeding). A transaction that sets `storefront.bulk_write` to
// 'on' (set_config(..., true): until it ends, or it sets 'off') skips those triggers and owes what
// they would have done: it rebuilds the documents of the products it wrote, once each, and marks
// the listing stale, so the catalogue rebuilds it whole (src/modules/catalogue/products/bulk-write.ts).
// SQLite's triggers run in process and cost the demo little: nothing changes there.

const SKIPPED = `if current_setting('storefront.bulk_write', true) = 'on' then return null; end if;`;

/** The trigger functions as their migrations wrote them. */
const FUNCTIONS: Record<string, string> = {
  product_document_product_changed: `if tg_op <> 'UPDATE' then perform product_document_refresh(case when tg_op = 'DELETE' then old.id else new.id end); end if;
    if tg_op <> 'INSERT' then perform product_document_refresh(old.physical_book_id); end if;
    if tg_op <> 'DELETE' then perform product_document_refresh(new.physical_book_id); end if;`,
  product_document_child_changed: `if tg_op <> 'DELETE' and tg_table_name = 'product_person' then perform 1 from person where id = new.person_id for share; end if;
    if tg_op <> 'DELETE' and tg_table_name = 'campaign_price' then perform 1 from campaign where id = new.campaign_id for share; end if;
    if tg_op <> 'INSERT' then perform product_document_refresh(old.product_id); end if;
    if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.product_id is distinct from old.product_id) then perform product_document_refresh(new.product_id); end if;`,
  category_listing_product_changed: `perform category_listing_refresh(case when tg_op = 'DELETE' then old.id else new.id end);`,
  category_listing_link_changed: `if tg_op <> 'INSERT' then perform category_listing_refresh(old.product_id); end if;
    if tg_op <> 'DELETE' then perform category_listing_refresh(new.product_id); end if;`,
};

async function replace(db: Kysely<any>, name: string, body: string): Promise<void> {
  await sql
    .raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`)
    .execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [name, body] of Object.entries(FUNCTIONS)) await replace(db, name, `${SKIPPED} ${body}`);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const [name, body] of Object.entries(FUNCTIONS)) await replace(db, name, body);
}

import { PostgresAdapter, sql, type Kysely } from 'kysely';

// Since migration 2026_12_10_1010 a product's category listing refresh takes the product's lock (the one
// product_document_refresh and store_listing_refresh take). Its product trigger fires before the document's
// (triggers fire in name order), so an e-book's deactivation locked the e-book and then, through its document
// trigger, its physical book, while a person's or a campaign's change locks their products in id order, the
// physical book (older) first: each waited for the other and PostgreSQL ended one (40P01). The trigger now
// takes the product's lock and those of the physical books the document trigger will refresh in id order,
// before either refresh (a lock a transaction holds is taken again at once). Only PostgreSQL has the locks.

/** pg_advisory_xact_lock's first key of a product's refresh (migration 2026_11_24_1600): one lock per product. */
const DOCUMENT_LOCK_SPACE = 1_600_024;
/** Skipped inside a bulk write (migration 2026_11_27_2100), which does the triggers' work at its end. */
const SKIPPED = `if current_setting('storefront.bulk_write', true) = 'on' then return null; end if;`;
/** The columns whose update refreshes the physical books' documents (EDITION_COLUMNS, migration 2026_11_24_1600). */
const EDITION_COLUMNS = ['physical_book_id', 'type', 'is_active', 'code', 'name'];
const REFRESH = `perform category_listing_refresh(case when tg_op = 'DELETE' then old.id else new.id end);`;

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const editionChanged = EDITION_COLUMNS.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
  await sql
    .raw(
      `create or replace function category_listing_product_changed() returns trigger language plpgsql as $$
      declare ids bigint[]; lock_id bigint;
      begin
        ${SKIPPED}
        if tg_op = 'INSERT' then ids := array[new.id, new.physical_book_id];
        elsif tg_op = 'DELETE' then ids := array[old.id, old.physical_book_id];
        elsif ${editionChanged} then ids := array[new.id, old.physical_book_id, new.physical_book_id];
        else ids := array[new.id];
        end if;
        for lock_id in select distinct x from unnest(ids) x where x is not null order by x loop
          perform pg_advisory_xact_lock(${DOCUMENT_LOCK_SPACE}, (lock_id % 2147483647)::int);
        end loop;
        ${REFRESH}
        return null;
      end $$`,
    )
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql
    .raw(
      `create or replace function category_listing_product_changed() returns trigger language plpgsql as $$ begin ${SKIPPED} ${REFRESH} return null; end $$`,
    )
    .execute(db);
}

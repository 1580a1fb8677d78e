import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { documentBody } from './2026_11_24_1600_create_product_document.js';

// On PostgreSQL a campaign's writes no longer refresh the documents of the products it prices. Every
// campaign_price row written refreshed its product's document (its `cp`, the campaign prices:
// product_document_child_changed, migration 2026_11_24_1600), and a change of a campaign's terms every
// priced product's, each through product_document_refresh, which takes the product's refresh lock
// (pg_advisory_xact_lock(1600024, id)) until the writer commits. A campaign line is open for seconds
// (about 20 s at 100,000 prices): a change of the stores or categories of any product it prices (its
// document, store list and category list rows take the same lock: 2026_12_09_1010, 2026_12_10_1010,
// 2026_12_10_1110), or an e-book's edition change, waited for the whole line, and a line waited for
// such a change in flight (test/import/campaign-refresh-locks.test.ts). Nothing else of a product is
// derived from its campaign prices: lists, search, baskets and the data export read campaign_price.
// The product page reads them there now too (product-document.repository.ts), so the document's `cp`
// has no reader in this release; it is refreshed, under the product's lock but in short transactions
// of their own, by the jobs the campaign line queues with the campaign (catalogue-import.campaign-stamps),
// for the processes of the release before, which read a product page's campaign prices from it.
//
// Rolling-safe: only the trigger functions change (create or replace: no table lock; the triggers stay,
// as 2026_12_12_1110's did, since dropping one locks its table against every read). A campaign written
// by either release after this commit leaves the documents alone; the release before shows its prices
// on its product pages (not its lists, search or baskets, which read campaign_price) once a worker of
// this release has run the campaign's jobs, as the data export finds them. SQLite is unchanged: one
// writer at a time, its triggers keep `cp` exact.

const SKIPPED = `if current_setting('storefront.bulk_write', true) = 'on' then return null; end if;`;

/** product_document_child_changed as migration 2026_11_27_2100 left it. */
const CHILD_CHANGED = `if tg_op <> 'DELETE' and tg_table_name = 'product_person' then perform 1 from person where id = new.person_id for share; end if;
    if tg_op <> 'DELETE' and tg_table_name = 'campaign_price' then perform 1 from campaign where id = new.campaign_id for share; end if;
    if tg_op <> 'INSERT' then perform product_document_refresh(old.product_id); end if;
    if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.product_id is distinct from old.product_id) then perform product_document_refresh(new.product_id); end if;`;
/** product_document_campaign_changed as migration 2026_11_24_1600 wrote it. */
const CAMPAIGN_CHANGED = `perform product_document_refresh(product_id) from (select distinct product_id from campaign_price where campaign_id = new.id order by product_id) ids;`;
/** The same, but the rows of campaign_price leave the documents alone (the function is shared by every child table). */
const CHILD_CHANGED_BUT_CAMPAIGN_PRICES = `if tg_table_name = 'campaign_price' then return null; end if;
    if tg_op <> 'DELETE' and tg_table_name = 'product_person' then perform 1 from person where id = new.person_id for share; end if;
    if tg_op <> 'INSERT' then perform product_document_refresh(old.product_id); end if;
    if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.product_id is distinct from old.product_id) then perform product_document_refresh(new.product_id); end if;`;

async function replace(db: Kysely<any>, name: string, body: string): Promise<void> {
  await sql
    .raw(`create or replace function ${name}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`)
    .execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await replace(db, 'product_document_child_changed', `${SKIPPED} ${CHILD_CHANGED_BUT_CAMPAIGN_PRICES}`);
  // A change of a campaign's terms: nothing (the trigger stays, doing nothing).
  await replace(db, 'product_document_campaign_changed', '');
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  // A campaign line in flight wrote its prices through the functions above, which refresh nothing: the
  // campaigns' writers are waited for (and the next wait for this commit), so what is read below is final.
  await sql`lock table campaign, campaign_price in share mode`.execute(db);
  await replace(db, 'product_document_child_changed', `${SKIPPED} ${CHILD_CHANGED}`);
  await replace(db, 'product_document_campaign_changed', CAMPAIGN_CHANGED);
  // The release before reads every document's cp: each made exact, as the jobs not yet run would have
  // made it, and a product a campaign stopped pricing too. Only cp, in one statement, and not through
  // product_document_refresh: that takes each product's advisory lock until this commits, and the shared
  // lock table holds about max_locks_per_transaction x max_connections of them for every session (a
  // catalogue past ~10,000 products failed "out of shared memory" on a default server). Its inputs are
  // held still above; a writer of another input rebuilds a whole document, with the same cp.
  await sql
    .raw(
      `update product_document d set body = jsonb_set(d.body::jsonb, '{cp}', f.cp)::text
      from (select p.id, (${documentBody(true)})::jsonb -> 'cp' as cp from product p) f
      where f.id = d.product_id and d.body::jsonb -> 'cp' is distinct from f.cp`,
    )
    .execute(db);
}

import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

// Reads of growing tables that the plan sweep (test/http/plan-sweep.test.ts: every GET operation,
// called with valid requests, every statement explained) found reading the whole table, on both
// engines, for want of an index to search or to walk in the list's own order:
// - a user's client accounts (every authenticated GET /user/me, "your data"): the unique key on
//   (user_id, store_code, type) that answered `where user_id = ?` became a partial index in
//   2026_11_29_0500, which only a query with its condition may use; every other read by user
//   scanned client_account;
// - a person's wholesale applications by email ("your data");
// - the product lists without a category in their default order (newest first, unknown dates
//   last, then id descending, product-query.ts newest()), alone and by product type, in a
//   series' reading order, and by a wholesale client's price: each sorted every visible product
//   for a page. The index's order is the list's, so page 1 reads a page's worth of entries (as
//   product_publisher_newest_idx does for a publisher's products);
// - a store's product lists in their order (GET /product-list), quotes in a language newest first
//   (GET /quote), a publisher's series (GET /series?publisherId=), and series by name prefix (as
//   2026_11_24_1641 indexed authors' and publishers' folded names: PostgreSQL reads a LIKE prefix
//   from such an index, SQLite the prefix's byte range, browse.repository.ts startsWith).

const NEWEST = 'case when released_at is null then 1 else 0 end';

const isPostgres = (db: Kysely<any>) => db.getExecutor().adapter instanceof PostgresAdapter;

function indexes(db: Kysely<any>): Array<[name: string, create: RawBuilder<unknown>]> {
  const ops = isPostgres(db) ? sql` text_pattern_ops` : sql``;
  return [
    ['client_account_user_idx', sql`create index client_account_user_idx on client_account (user_id, id)`],
    ['wholesale_request_email_idx', sql`create index wholesale_request_email_idx on wholesale_request (email, id)`],
    ['product_newest_idx', sql`create index product_newest_idx on product ((${sql.raw(NEWEST)}), released_at desc, id desc)`],
    [
      'product_type_newest_idx',
      sql`create index product_type_newest_idx on product (type, (${sql.raw(NEWEST)}), released_at desc, id desc)`,
    ],
    [
      'product_series_order_idx',
      sql`create index product_series_order_idx on product ((case when series_number is null then 1 else 0 end), series_number, (${sql.raw(NEWEST)}), released_at desc, id desc)`,
    ],
    // price-streams.ts regularPrice(): what a wholesale client's price sorts order by, written the same.
    [
      'product_wholesale_price_idx',
      sql`create index product_wholesale_price_idx on product ((coalesce(nullif(wholesale_price_cents, 0), shop_price_cents * 100.0 / (100 + vat_rate_percent))), id)`,
    ],
    ['product_list_store_idx', sql`create index product_list_store_idx on product_list (store_code, is_active, position, id)`],
    ['quote_language_idx', sql`create index quote_language_idx on quote (language, id)`],
    ['series_publisher_idx', sql`create index series_publisher_idx on series (publisher_id, name, id)`],
    ['series_name_upper_idx', sql`create index series_name_upper_idx on series ((upper(name))${ops})`],
    ['series_name_lower_idx', sql`create index series_name_lower_idx on series ((lower(name))${ops})`],
  ];
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const [, create] of indexes(db)) await create.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [name] of indexes(db).reverse()) await db.schema.dropIndex(name).execute();
}

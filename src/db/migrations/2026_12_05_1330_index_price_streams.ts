import type { Kysely } from 'kysely';

// A list sorted by price is read as ordered streams merged (catalogue/price-order.ts): besides the
// products by regular price (product_price_idx, product_wholesale_price_idx), each running
// campaign's prices for a kind of customer by price, and a wholesale company's own prices by
// price. These indexes give those orders, so a page reads its first rows instead of sorting them all.

const INDEXES = [
  {
    name: 'campaign_price_order_idx',
    table: 'campaign_price',
    columns: ['campaign_id', 'customer_kind', 'price_cents', 'product_id'],
  },
  { name: 'company_product_price_order_idx', table: 'company_product_price', columns: ['company_id', 'price_cents', 'product_id'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) await db.schema.createIndex(index.name).on(index.table).columns(index.columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [...INDEXES].reverse()) await db.schema.dropIndex(index.name).execute();
}

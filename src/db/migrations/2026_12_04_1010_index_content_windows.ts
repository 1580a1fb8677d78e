import type { Kysely } from 'kysely';

// The items of a key that can be shown (a store's main pages and menus, a category's pages, a
// placement's banners) are read as ranges of their window: the ones ending after now, the
// open-ended ones to come, the open-ended one that started last (content.repository.ts). Without
// these, every item the key ever had was read, each season's included.

const INDEXES = [
  {
    name: 'block_page_window_idx',
    table: 'block_page',
    columns: ['store_code', 'kind', 'category_id', 'visible_to', 'visible_from', 'id'],
  },
  { name: 'menu_window_idx', table: 'menu', columns: ['store_code', 'visible_to', 'visible_from', 'id'] },
  { name: 'banner_window_idx', table: 'banner', columns: ['store_code', 'placement', 'visible_to'] },
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const index of INDEXES) await db.schema.createIndex(index.name).on(index.table).columns(index.columns).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [...INDEXES].reverse()) await db.schema.dropIndex(index.name).execute();
}

import type { Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

// The content module's tables (migration 2026_11_24_1000_create_content_pages). Times are Unix ms;
// `translations`, `settings` and `links` are JSON text (see the migration for their shapes).

export type BlockPageKind = 'COMPOSITE' | 'CATEGORY' | 'DISCOUNT' | 'MAIN';

/** Columns every published item has. */
interface Published {
  store_code: string;
  is_active: BooleanColumn;
  /** Inclusive; null: no start. */
  visible_from: number | null;
  /** Exclusive; null: no end. */
  visible_to: number | null;
}

export interface ContentPageTable extends Published {
  id: Generated<number>;
  code: string;
  slug: string;
  translations: string;
  created_at: number;
  updated_at: number;
}

export interface BlockPageTable extends Published {
  id: Generated<number>;
  code: string;
  kind: BlockPageKind;
  slug: string | null;
  category_id: number | null;
  campaign_code: string | null;
  translations: string;
  created_at: number;
  updated_at: number;
}

export interface PageBlockTable {
  id: Generated<number>;
  page_id: number;
  position: number;
  type: string;
  is_active: BooleanColumn;
  visible_from: number | null;
  visible_to: number | null;
  settings: string;
  translations: string;
}

export interface BannerTable extends Published {
  id: Generated<number>;
  code: string;
  placement: string;
  position: number;
  customer_kinds: string;
  link_url: string | null;
  image_url: string | null;
  translations: string;
  created_at: number;
  updated_at: number;
}

export interface MenuTable extends Published {
  id: Generated<number>;
  code: string;
  links: string;
  created_at: number;
  updated_at: number;
}

export interface ContentTables {
  content_page: ContentPageTable;
  block_page: BlockPageTable;
  page_block: PageBlockTable;
  banner: BannerTable;
  menu: MenuTable;
}

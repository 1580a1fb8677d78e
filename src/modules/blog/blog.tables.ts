// Blog posts and categories, news, shop schedules and redirects (migrations 2026_11_24_1100 and
// _1101). Conventions of every table: src/db/schema.ts.
import type { ColumnType, Generated } from 'kysely';
import type { BooleanColumn } from '../../db/schema.js';

/** The columns every published item has: the active flag and the optional window (to exclusive). */
export interface PublishedColumns {
  is_active: BooleanColumn;
  visible_from: number | null;
  visible_to: number | null;
  /** The date shown and the order of lists, newest first. */
  published_at: number;
}

export interface BlogCategoryTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  slug: string;
  position: number;
  is_active: BooleanColumn;
  created_at: number;
  updated_at: number;
}

export interface BlogCategoryNameTable {
  blog_category_id: number;
  language: string;
  name: string;
}

export interface BlogPostTable extends PublishedColumns {
  id: Generated<number>;
  code: string;
  store_code: string;
  /** A post is written in one language; lists show the caller's language's posts. */
  language: string;
  slug: string;
  title: string;
  summary: string | null;
  body: string;
  image_url: string | null;
  author: string | null;
  category_id: number | null;
  seo_title: string | null;
  seo_description: string | null;
  created_at: number;
  updated_at: number;
}

export interface BlogPostTagTable {
  blog_post_id: number;
  tag: string;
}

export interface NewsTable extends PublishedColumns {
  id: Generated<number>;
  code: string;
  store_code: string;
  slug: string;
  image_url: string | null;
  created_at: number;
  updated_at: number;
}

export interface NewsTranslationTable {
  news_id: number;
  language: string;
  title: string;
  summary: string | null;
  body: string;
  seo_title: string | null;
  seo_description: string | null;
}

export interface ShopOpeningHoursTable {
  shop_id: number;
  /** ISO weekday: 1 = Monday ... 7 = Sunday. */
  weekday: number;
  opens_minute: number;
  closes_minute: number;
}

export interface ShopScheduleExceptionTable {
  shop_id: number;
  /** YYYY-MM-DD in Europe/Tallinn. */
  day: string;
  /** Null (with closes_minute): closed all day. */
  opens_minute: number | null;
  closes_minute: number | null;
  /** JSON text {et, en?, ru?}. */
  names: string;
}

export interface RedirectTable {
  id: Generated<number>;
  code: string;
  store_code: string;
  path: string;
  target: string;
  status: number;
  is_active: BooleanColumn;
  hits: ColumnType<number | string, number | undefined, number>;
  last_hit_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface BlogTables {
  blog_category: BlogCategoryTable;
  blog_category_name: BlogCategoryNameTable;
  blog_post: BlogPostTable;
  blog_post_tag: BlogPostTagTable;
  news: NewsTable;
  news_translation: NewsTranslationTable;
  shop_opening_hours: ShopOpeningHoursTable;
  shop_schedule_exception: ShopScheduleExceptionTable;
  redirect: RedirectTable;
}

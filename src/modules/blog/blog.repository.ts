import type { Db } from '../../db/database.js';
import type { ReadMode } from './publishing.js';
import { publishedAt } from './publishing.js';
import { pickTranslation } from './translations.js';

// The SQL of the blog's reading side: posts a page at a time, one post, categories and tags.

export interface PostFilter {
  store: string;
  language: string;
  /** A category's slug. */
  category?: string;
  tag?: string;
  now: number;
  mode: ReadMode;
}

export interface PostRow {
  id: number;
  code: string;
  language: string;
  slug: string;
  title: string;
  summary: string | null;
  image_url: string | null;
  author: string | null;
  category_id: number | null;
  published_at: number;
  updated_at: number;
}

export interface PostDetailRow extends PostRow {
  body: string;
  seo_title: string | null;
  seo_description: string | null;
}

const LIST_COLUMNS = [
  'blog_post.id',
  'blog_post.code',
  'blog_post.language',
  'blog_post.slug',
  'blog_post.title',
  'blog_post.summary',
  'blog_post.image_url',
  'blog_post.author',
  'blog_post.category_id',
  'blog_post.published_at',
  'blog_post.updated_at',
] as const;

function filteredPosts(db: Db, filter: PostFilter) {
  let query = db.selectFrom('blog_post').where('blog_post.store_code', '=', filter.store).where('blog_post.language', '=', filter.language);
  if (filter.mode === 'public') query = query.where(publishedAt('blog_post', filter.now));
  if (filter.category !== undefined) {
    const slug = filter.category;
    query = query.where((eb) => {
      let category = eb
        .selectFrom('blog_category')
        .select('blog_category.id')
        .whereRef('blog_category.id', '=', 'blog_post.category_id')
        .where('blog_category.store_code', '=', filter.store)
        .where('blog_category.slug', '=', slug);
      // A category switched off is hidden from the public as GET /blog-category hides it: its listing is none.
      if (filter.mode === 'public') category = category.where('blog_category.is_active', '=', true);
      return eb.exists(category);
    });
  }
  if (filter.tag !== undefined) {
    const tag = filter.tag;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('blog_post_tag')
          .select('blog_post_tag.tag')
          .whereRef('blog_post_tag.blog_post_id', '=', 'blog_post.id')
          .where('blog_post_tag.tag', '=', tag),
      ),
    );
  }
  return query;
}

/** One page of posts, newest first, and how many there are in all. */
export async function pageOfPosts(db: Db, filter: PostFilter, offset: number, limit: number): Promise<{ rows: PostRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    filteredPosts(db, filter)
      .select(LIST_COLUMNS)
      .orderBy('blog_post.published_at', 'desc')
      .orderBy('blog_post.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    filteredPosts(db, filter)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** The post with this slug in the store, whatever its language (a slug is unique per store). */
export async function postBySlug(db: Db, store: string, slug: string, now: number, mode: ReadMode): Promise<PostDetailRow | undefined> {
  let query = db
    .selectFrom('blog_post')
    .select([...LIST_COLUMNS, 'blog_post.body', 'blog_post.seo_title', 'blog_post.seo_description'])
    .where('blog_post.store_code', '=', store)
    .where('blog_post.slug', '=', slug);
  if (mode === 'public') query = query.where(publishedAt('blog_post', now));
  return query.executeTakeFirst();
}

/** The tags of these posts, each post's sorted. */
export async function tagsOf(db: Db, postIds: number[]): Promise<Map<number, string[]>> {
  const tags = new Map<number, string[]>();
  if (postIds.length === 0) return tags;
  const rows = await db
    .selectFrom('blog_post_tag')
    .select(['blog_post_id', 'tag'])
    .where('blog_post_id', 'in', postIds)
    .orderBy('tag')
    .execute();
  for (const row of rows) tags.set(Number(row.blog_post_id), [...(tags.get(Number(row.blog_post_id)) ?? []), row.tag]);
  return tags;
}

export interface CategoryRow {
  id: number;
  code: string;
  slug: string;
  name: string;
  position: number;
  is_active: boolean;
}

/**
 * The store's blog categories in display order, named in the first of `languages` they have a name
 * in; `ids` limits them to those (the categories of a page of posts). Inactive ones only in preview.
 */
export async function categories(db: Db, store: string, languages: string[], mode: ReadMode, ids?: number[]): Promise<CategoryRow[]> {
  if (ids !== undefined && ids.length === 0) return [];
  let query = db
    .selectFrom('blog_category')
    .select(['id', 'code', 'slug', 'position', 'is_active'])
    .where('store_code', '=', store)
    .orderBy('position')
    .orderBy('id')
    // A store has a handful of categories; this only keeps a broken import from a huge answer.
    .limit(1_000);
  if (mode === 'public') query = query.where('is_active', '=', true);
  if (ids !== undefined) query = query.where('id', 'in', ids);
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const names = await db
    .selectFrom('blog_category_name')
    .select(['blog_category_id', 'language', 'name'])
    .where(
      'blog_category_id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  return rows.map((row) => ({
    id: Number(row.id),
    code: row.code,
    slug: row.slug,
    position: row.position,
    is_active: Boolean(row.is_active),
    name:
      pickTranslation(
        names.filter((name) => Number(name.blog_category_id) === Number(row.id)),
        languages,
      )?.name ?? row.code,
  }));
}

import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { Language } from '../../i18n/index.js';
import { notFound } from '../../infra/domain-error.js';
import { categories, pageOfPosts, postBySlug, tagsOf, type CategoryRow, type PostRow } from './blog.repository.js';
import { newsBySlug, pageOfNews, type NewsItem } from './news.repository.js';
import type { ReadMode } from './publishing.js';
import { fallbackLanguages } from './translations.js';

// The blog's and the news' reading rules: which items a reader sees (publishing.ts), in which
// language, shaped for the wire.

export interface ContentContext {
  store: string;
  language: Language;
  storeDefaultLanguage: Language;
  now: number;
  mode: ReadMode;
}

export interface Page {
  offset: number;
  perPage: number;
}

const categoryRef = (category: CategoryRow | undefined) =>
  category ? { code: category.code, slug: category.slug, name: category.name } : null;

function postSummary(row: PostRow, category: CategoryRow | undefined, tags: string[]) {
  return {
    code: row.code,
    slug: row.slug,
    language: row.language,
    title: row.title,
    summary: row.summary,
    imageUrl: row.image_url,
    author: row.author,
    category: categoryRef(category),
    tags,
    publishedAt: toRfc3339(row.published_at),
    updatedAt: toRfc3339(row.updated_at),
  };
}

/** A page of the caller's language's posts, newest first; by category slug and tag. */
export async function listPosts(db: Db, context: ContentContext, filter: { category?: string; tag?: string }, page: Page) {
  const { rows, total } = await pageOfPosts(
    db,
    {
      store: context.store,
      language: context.language,
      now: context.now,
      mode: context.mode,
      ...(filter.category !== undefined && { category: filter.category }),
      ...(filter.tag !== undefined && { tag: filter.tag.trim().toLowerCase() }),
    },
    page.offset,
    page.perPage,
  );
  const ids = rows.map((row) => Number(row.id));
  const categoryIds = [...new Set(rows.flatMap((row) => (row.category_id === null ? [] : [Number(row.category_id)])))];
  const [tags, named] = await Promise.all([
    tagsOf(db, ids),
    categories(db, context.store, fallbackLanguages(context.language, context.storeDefaultLanguage), context.mode, categoryIds),
  ]);
  const byId = new Map(named.map((category) => [category.id, category]));
  const items = rows.map((row) => postSummary(row, byId.get(Number(row.category_id)), tags.get(Number(row.id)) ?? []));
  return { items, total };
}

/** One post by its slug, in its own language whatever the caller asks for. */
export async function getPost(db: Db, context: ContentContext, slug: string) {
  const row = await postBySlug(db, context.store, slug, context.now, context.mode);
  if (!row) throw notFound('blog.postNotFound', { slug: slug.slice(0, 100) });
  const languages = fallbackLanguages(row.language as Language, context.storeDefaultLanguage);
  const [tags, named] = await Promise.all([
    tagsOf(db, [Number(row.id)]),
    row.category_id === null ? [] : categories(db, context.store, languages, context.mode, [Number(row.category_id)]),
  ]);
  return {
    ...postSummary(row, named[0], tags.get(Number(row.id)) ?? []),
    body: row.body,
    seoTitle: row.seo_title,
    seoDescription: row.seo_description,
  };
}

export async function listCategories(db: Db, context: ContentContext) {
  const rows = await categories(db, context.store, fallbackLanguages(context.language, context.storeDefaultLanguage), context.mode);
  return rows.map((row) => ({ code: row.code, slug: row.slug, name: row.name, position: row.position }));
}

function newsSummary(item: NewsItem) {
  return {
    code: item.code,
    slug: item.slug,
    language: item.language,
    title: item.title,
    summary: item.summary,
    imageUrl: item.image_url,
    publishedAt: toRfc3339(item.published_at),
    updatedAt: toRfc3339(item.updated_at),
  };
}

const newsQuery = (context: ContentContext) => ({
  store: context.store,
  now: context.now,
  mode: context.mode,
  languages: fallbackLanguages(context.language, context.storeDefaultLanguage),
});

export async function listNews(db: Db, context: ContentContext, page: Page) {
  const { items, total } = await pageOfNews(db, newsQuery(context), page.offset, page.perPage);
  return { items: items.map(newsSummary), total };
}

export async function getNews(db: Db, context: ContentContext, slug: string) {
  const item = await newsBySlug(db, newsQuery(context), slug);
  if (!item) throw notFound('blog.newsNotFound', { slug: slug.slice(0, 100) });
  return { ...newsSummary(item), body: item.body, seoTitle: item.seo_title, seoDescription: item.seo_description };
}

import type { Db } from '../../db/database.js';
import { publishedAt, type ReadMode } from './publishing.js';
import { pickTranslation } from './translations.js';

// The SQL of the news' reading side. A news item is translated: a page is read by the (store,
// published_at, id) index, then its translations in one query.

export interface NewsItem {
  code: string;
  slug: string;
  language: string;
  title: string;
  summary: string | null;
  body: string;
  seo_title: string | null;
  seo_description: string | null;
  image_url: string | null;
  published_at: number;
  updated_at: number;
}

interface NewsQuery {
  store: string;
  now: number;
  mode: ReadMode;
}

function filteredNews(db: Db, query: NewsQuery) {
  let select = db.selectFrom('news').where('news.store_code', '=', query.store);
  if (query.mode === 'public') select = select.where(publishedAt('news', query.now));
  return select;
}

const NEWS_COLUMNS = ['news.id', 'news.code', 'news.slug', 'news.image_url', 'news.published_at', 'news.updated_at'] as const;

async function translated(
  db: Db,
  rows: Array<{ id: number; code: string; slug: string; image_url: string | null; published_at: number; updated_at: number }>,
  languages: string[],
): Promise<NewsItem[]> {
  if (rows.length === 0) return [];
  const translations = await db
    .selectFrom('news_translation')
    .selectAll()
    .where(
      'news_id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  return rows.flatMap((row) => {
    const text = pickTranslation(
      translations.filter((candidate) => Number(candidate.news_id) === Number(row.id)),
      languages,
    );
    if (!text) return [];
    const { id: _id, ...item } = row;
    return [
      {
        ...item,
        language: text.language,
        title: text.title,
        summary: text.summary,
        body: text.body,
        seo_title: text.seo_title,
        seo_description: text.seo_description,
      },
    ];
  });
}

/** One page of news, newest first, in the first of `languages` each has, and the total. */
export async function pageOfNews(
  db: Db,
  query: NewsQuery & { languages: string[] },
  offset: number,
  limit: number,
): Promise<{ items: NewsItem[]; total: number }> {
  const [rows, count] = await Promise.all([
    filteredNews(db, query)
      .select(NEWS_COLUMNS)
      .orderBy('news.published_at', 'desc')
      .orderBy('news.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    filteredNews(db, query)
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { items: await translated(db, rows, query.languages), total: Number(count.n) };
}

export async function newsBySlug(db: Db, query: NewsQuery & { languages: string[] }, slug: string): Promise<NewsItem | undefined> {
  const rows = await filteredNews(db, query).select(NEWS_COLUMNS).where('news.slug', '=', slug).execute();
  return (await translated(db, rows, query.languages))[0];
}

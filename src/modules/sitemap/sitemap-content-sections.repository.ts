import type { Db } from '../../db/database.js';
import { publishedAt } from '../../infra/publishing.js';
import { keysetPages, PAGE, type SitemapSection } from './sitemap-sections.repository.js';

// The sections of the content modules' pages: content pages, blog posts and news, each as the
// public sees it now (active and inside its window [visible_from, visible_to)), by slug. A blog
// post is written in one language and listed once, at its own URL.

type PublishedTable = 'content_page' | 'blog_post' | 'news';

function publishedSection(name: string, table: PublishedTable, prefix: string): SitemapSection {
  return {
    name,
    urls: (db: Db, storeCode, now) =>
      keysetPages(
        (after) =>
          db
            .selectFrom(table)
            .select(['id', 'updated_at', 'slug'])
            .where('store_code', '=', storeCode)
            .where(publishedAt(table, now))
            .where('id', '>', after)
            .orderBy('id')
            .limit(PAGE)
            .execute(),
        (row) => `/${prefix}/${encodeURIComponent(row.slug)}`,
      ),
  };
}

export const contentPageSection = publishedSection('content-pages', 'content_page', 'content-page');
export const blogPostSection = publishedSection('blog-posts', 'blog_post', 'blog');
export const newsSection = publishedSection('news', 'news', 'news');

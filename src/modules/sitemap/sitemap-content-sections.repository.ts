import type { Db } from '../../db/database.js';
import { publishedAt } from '../../infra/publishing.js';
import { keysetPages, PAGE, type SitemapSection } from './sitemap-sections.repository.js';

// The sections of the content modules' pages: content pages, composite and discount landing pages,
// blog posts and news, each as the public sees it now (active and inside its window [visible_from,
// visible_to)), by slug. A blog post is written in one language and listed once, at its own URL.

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

/**
 * Block pages read by slug (GET /composite-page/{slug}, /discount-page/{slug}), the paths banners and
 * menus link to. A discount page is answered while its own window runs, its campaign's or not (it then
 * shows no products), so it is listed as long. Category pages are their category's (listed there) and
 * the main page is the front-end's root.
 */
function blockPageSection(name: string, kind: 'COMPOSITE' | 'DISCOUNT', prefix: string): SitemapSection {
  return {
    name,
    urls: (db: Db, storeCode, now) =>
      keysetPages(
        (after) =>
          db
            .selectFrom('block_page')
            .select(['id', 'updated_at', 'slug'])
            .where('store_code', '=', storeCode)
            .where('kind', '=', kind)
            .where('slug', 'is not', null)
            .where(publishedAt('block_page', now))
            .where('id', '>', after)
            .orderBy('id')
            .limit(PAGE)
            .execute(),
        (row) => `/${prefix}/${encodeURIComponent(row.slug!)}`,
      ),
  };
}

export const contentPageSection = publishedSection('content-pages', 'content_page', 'content-page');
export const compositePageSection = blockPageSection('composite-pages', 'COMPOSITE', 'composite-page');
export const discountPageSection = blockPageSection('discount-pages', 'DISCOUNT', 'discount-page');
export const blogPostSection = publishedSection('blog-posts', 'blog_post', 'blog');
export const newsSection = publishedSection('news', 'news', 'news');

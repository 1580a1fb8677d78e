import {
  blogPostSection,
  compositePageSection,
  contentPageSection,
  discountPageSection,
  newsSection,
} from './sitemap-content-sections.repository.js';
import {
  campaignSection,
  categorySection,
  personSection,
  productListSection,
  productSection,
  publisherSection,
  seriesSection,
  shopSection,
  type SitemapSection,
} from './sitemap-sections.repository.js';

/**
 * The store's front page (the front-end URL's root, `<frontend-url>/`), always: its most linked page,
 * and what keeps the index of a store with nothing else to list yet from being empty, which the
 * sitemaps.org schema refuses (a sitemapindex lists 1 to 50,000 files). No lastmod: it shows the newest
 * products and the day's blocks, no one date is its change.
 */
export const frontPageSection: SitemapSection = {
  name: 'pages',
  async *urls() {
    yield { path: '/' };
  },
};

/** Every section, in the index's order; a new kind of page is one provider and one line here. */
export const SITEMAP_SECTIONS: readonly SitemapSection[] = [
  frontPageSection,
  productSection,
  categorySection,
  personSection,
  publisherSection,
  seriesSection,
  productListSection,
  campaignSection,
  shopSection,
  contentPageSection,
  compositePageSection,
  discountPageSection,
  blogPostSection,
  newsSection,
];

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

/** Every section, in the index's order; a new kind of page is one provider and one line here. */
export const SITEMAP_SECTIONS: readonly SitemapSection[] = [
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

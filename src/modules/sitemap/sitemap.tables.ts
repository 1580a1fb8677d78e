// The last sitemap run per store and section (migration 1202). Conventions of every table: src/db/schema.ts.

export interface SitemapSectionTable {
  store_code: string;
  section: string;
  generated_at: number;
  urls: number;
  /** JSON array of the file names the index lists for the section. */
  files: string;
  /** Null when the section's last run succeeded. */
  error: string | null;
}

export interface SitemapTables {
  sitemap_section: SitemapSectionTable;
}

import type { Db } from '../../db/database.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { storeFileKey, writeIndexFile, writeSectionFiles } from './sitemap-files.js';
import type { SitemapSection } from './sitemap-sections.repository.js';
import { replaceSectionStatuses, sectionStatuses, type SectionStatus } from './sitemap.repository.js';

/** Search engines take up to 50,000 URLs a file; smaller files are fetched and re-read faster. */
export const MAX_URLS_PER_FILE = 8_000;

export interface SitemapStore {
  code: string;
  /** The front-end's base URL: the sitemap's URLs are the front-end's pages. */
  frontendUrl: string;
}

export interface GenerateOptions {
  sections: readonly SitemapSection[];
  now: number;
  /** Where this service serves the files (PUBLIC_URL + BASE_PATH + /sitemap/<store>/), for the index. */
  filesUrl: (storeCode: string, file: string) => string;
  maxUrlsPerFile?: number;
}

/**
 * Generates one store's sitemap: each section on its own (an error in one is recorded and the rest
 * go on; the index then keeps that section's files of the run before), then the index, then the
 * run's statuses. Files a section no longer needs are removed once the new index no longer lists them.
 */
export async function generateStoreSitemap(
  db: Db,
  fileStore: FileStore,
  store: SitemapStore,
  options: GenerateOptions,
): Promise<SectionStatus[]> {
  const maxUrls = options.maxUrlsPerFile ?? MAX_URLS_PER_FILE;
  const previous = new Map((await sectionStatuses(db, store.code)).map((status) => [status.section, status]));
  const statuses: SectionStatus[] = [];
  const entries: Array<{ file: string; lastmod: number }> = [];
  /** Files of the run before that no section lists now: removed once the index stops listing them. */
  const stale: string[] = [];
  for (const section of options.sections) {
    const counted = { urls: 0, files: [] as string[] };
    const before = previous.get(section.name);
    try {
      const target = { storeCode: store.code, stem: section.name, baseUrl: store.frontendUrl, maxUrls };
      const { files } = await writeSectionFiles(fileStore, target, section.urls(db, store.code, options.now), counted);
      stale.push(...(before?.files.filter((file) => !files.includes(file)) ?? []));
      statuses.push({ storeCode: store.code, section: section.name, generatedAt: options.now, urls: counted.urls, files, error: null });
      entries.push(...files.map((file) => ({ file, lastmod: options.now })));
    } catch (err) {
      // The files this run wrote before it failed are whole and replaced those of the run before:
      // listed with this run's date, else a crawler that read them since that run's would skip
      // them, and those past the run before's count listed at all (and so removed once no run
      // needs them). The run before's files it did not reach keep their date.
      const written = counted.files;
      const untouched = (before?.files ?? []).filter((file) => !written.includes(file));
      const kept = [...written, ...untouched];
      const error = err instanceof Error ? err.message : String(err);
      statuses.push({
        storeCode: store.code,
        section: section.name,
        generatedAt: options.now,
        urls: counted.urls,
        files: kept,
        error: error.slice(0, 2000),
      });
      entries.push(...written.map((file) => ({ file, lastmod: options.now })));
      entries.push(...untouched.map((file) => ({ file, lastmod: before!.generatedAt })));
    }
  }
  await writeIndexFile(fileStore, store.code, entries, (file) => options.filesUrl(store.code, file));
  await db.transaction().execute((trx) => replaceSectionStatuses(trx, store.code, statuses));
  // Only now: until this run's index replaced it, the one served listed them (for the whole run, or
  // for good had the run died first), and a search engine that read it met 404s. After the statuses,
  // so that a failed removal leaves a file no index lists, never an index entry without its file.
  for (const file of stale) await fileStore.delete(storeFileKey(store.code, file));
  return statuses;
}

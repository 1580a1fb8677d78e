import { parseArgs } from 'node:util';
import type { Db } from '../../db/database.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { getAllStores, isStoreCode } from '../store/index.js';
import { sectionStatuses, type SectionStatus } from './sitemap.repository.js';
import { SITEMAP_SECTIONS } from './sitemap.sections.js';
import { generateStoreSitemap, MAX_URLS_PER_FILE } from './sitemap.service.js';

export const SITEMAP_USAGE = `  sitemap generate [--store=<CODE>]   write the sitemap files and index of every active store (or one), served at
                   [--urls-per-file=<n>]  /sitemap/<CODE>/sitemap.xml; at most ${MAX_URLS_PER_FILE} URLs a file (or n);
                                      exits 1 when a section failed (the others are written)
  sitemap status [--store=<CODE>]     the last run's URLs, files and errors per store and section`;

export interface SitemapCommandDeps {
  db: Db;
  fileStore: FileStore;
  /** PUBLIC_URL + BASE_PATH: where this service serves the files. */
  serviceUrl: string;
  clock?: Clock;
}

/** `storefront sitemap ...`; answers the exit code (1 when a section of the run failed). */
export async function sitemapCommand(deps: SitemapCommandDeps, args: string[], print: (line: string) => void): Promise<number> {
  const [action, ...rest] = args;
  const values = parse(action, rest);
  const store = values.store;
  if (store !== undefined && !isStoreCode(store)) throw new CliUsageError('--store must be WEB or WEB2');
  if (action === 'status') {
    if (values['urls-per-file'] !== undefined) throw new CliUsageError('sitemap status takes only --store');
    const statuses = await sectionStatuses(deps.db, store);
    if (statuses.length === 0) print('No sitemap has been generated yet.');
    for (const status of statuses) print(describe(status));
    return 0;
  }
  const maxUrls = values['urls-per-file'] === undefined ? MAX_URLS_PER_FILE : Number(values['urls-per-file']);
  if (!Number.isInteger(maxUrls) || maxUrls < 1 || maxUrls > MAX_URLS_PER_FILE) {
    throw new CliUsageError(`--urls-per-file must be a whole number from 1 to ${MAX_URLS_PER_FILE}`);
  }
  const stores = (await getAllStores(deps.db)).filter((candidate) => (store === undefined ? candidate.isActive : candidate.code === store));
  let failed = false;
  for (const target of stores) {
    const statuses = await generateStoreSitemap(deps.db, deps.fileStore, target, {
      sections: SITEMAP_SECTIONS,
      now: (deps.clock ?? systemClock).now(),
      filesUrl: (code, file) => `${deps.serviceUrl}/sitemap/${code}/${file}`,
      maxUrlsPerFile: maxUrls,
    });
    for (const status of statuses) print(describe(status));
    failed ||= statuses.some((status) => status.error !== null);
  }
  return failed ? 1 : 0;
}

function parse(action: string | undefined, args: string[]) {
  if (action !== 'generate' && action !== 'status') throw new CliUsageError(`unknown sitemap command "${[action, ...args].join(' ')}"`);
  try {
    return parseArgs({
      args,
      options: { store: { type: 'string' }, 'urls-per-file': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new CliUsageError(`sitemap ${action}: ${(error as Error).message}`);
  }
}

function describe(status: SectionStatus): string {
  const outcome = status.error === null ? 'ok' : `FAILED: ${status.error.replace(/\s+/g, ' ')}`;
  return `${status.storeCode}\t${status.section}\t${status.urls} URLs\t${status.files.length} files\t${new Date(status.generatedAt).toISOString()}\t${outcome}`;
}

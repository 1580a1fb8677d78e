import { parseArgs } from 'node:util';
import type { Db } from '../../db/database.js';
import { cliWholeNumber, CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { FileStore } from '../../infra/file-store/index.js';
import { withLease } from '../../infra/jobs/lease.js';
import { getAllStores, isStoreCode } from '../store/index.js';
import { sectionStatuses, type SectionStatus } from './sitemap.repository.js';
import { SITEMAP_SECTIONS } from './sitemap.sections.js';
import { generateStoreSitemap, MAX_URLS_PER_FILE } from './sitemap.service.js';

export const SITEMAP_USAGE = `  sitemap generate [--store=<CODE>]   write the sitemap files and index of every active store (or one), served at
                   [--urls-per-file=<n>]  /sitemap/<CODE>/sitemap.xml; at most ${MAX_URLS_PER_FILE} URLs a file (or n);
                                      exits 1 when a section failed (the others are written), or
                                      when another run is writing a store's (that store is skipped)
  sitemap status [--store=<CODE>]     the last run's URLs, files and errors per store and section`;

export interface SitemapCommandDeps {
  db: Db;
  fileStore: FileStore;
  /** PUBLIC_URL + BASE_PATH: where this service serves the files. */
  serviceUrl: string;
  clock?: Clock;
  /** Where warnings go (standard error): a sitemap written for addresses no crawler reaches. */
  warn?: (line: string) => void;
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
  const perFile = values['urls-per-file'];
  const maxUrls = perFile === undefined ? MAX_URLS_PER_FILE : cliWholeNumber(perFile, '--urls-per-file', 1, MAX_URLS_PER_FILE);
  const stores = (await getAllStores(deps.db)).filter((candidate) => (store === undefined ? candidate.isActive : candidate.code === store));
  let failed = false;
  const busy: string[] = [];
  const written: typeof stores = [];
  for (const target of stores) {
    const now = (deps.clock ?? systemClock).now();
    // One run of a store at a time (a cron line's run that outlasts its period, an operator's by hand):
    // two wrote the same files and replaced each other's statuses, on PostgreSQL failing on their key.
    const run = await withLease(deps.db, `sitemap:${target.code}`, { ttlMs: LEASE_TTL_MS, now }, () =>
      generateStoreSitemap(deps.db, deps.fileStore, target, {
        sections: SITEMAP_SECTIONS,
        now,
        filesUrl: (code, file) => `${deps.serviceUrl}/sitemap/${code}/${file}`,
        maxUrlsPerFile: maxUrls,
      }),
    );
    if (!run.ran) {
      busy.push(target.code);
      continue;
    }
    for (const status of run.result) print(describe(status));
    failed ||= run.result.some((status) => status.error !== null);
    written.push(target);
  }
  // Written all the same (a developer's local sitemap is fine), but a crawler reaches neither: a cron
  // line run without the API's PUBLIC_URL, or a store whose front-end URL was never set, wrote a
  // sitemap that is dead and said nothing.
  if (written.length > 0 && isLoopback(deps.serviceUrl))
    deps.warn?.(
      `warning: the sitemap index lists its files at ${deps.serviceUrl}/sitemap/, a loopback address no crawler reaches: ` +
        "run sitemap generate with the API's PUBLIC_URL (and BASE_PATH)",
    );
  for (const target of written.filter((store) => isLoopback(store.frontendUrl)))
    deps.warn?.(
      `warning: the sitemap of ${target.code} lists pages at ${target.frontendUrl}, a loopback address no crawler reaches: ` +
        `set the store's front-end URL (store set ${target.code} --frontend-url=<URL>)`,
    );
  if (busy.length > 0) throw new Error(`sitemap generate: another run is writing the sitemap of ${busy.join(', ')}; nothing written`);
  return failed ? 1 : 0;
}

/** A URL on this machine: `localhost` (and `*.localhost`), 127.0.0.0/8, `[::1]` or `0.0.0.0`. */
function isLoopback(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const host = new URL(url).hostname;
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]' || host === '0.0.0.0';
}

/** How long a store's run is taken for running without renewing its lease (renewed while it runs): a crashed run's wait. */
const LEASE_TTL_MS = 60_000;

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

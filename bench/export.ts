// The data-export API on 1,000,000 sales-history rows (and as many session actions), served by the
// compiled service on its own SQLite file:
//  (a) deep paging: latency of page 1 and of page 9,000 at 100 per page in a sequential walk
//      (target: the deep page costs at most 2x the first);
//  (b) the whole collection: walking every page at 1000 per page, and one NDJSON stream, each against
//      a plain keyset scan of the same rows in this process in the same run (raw better-sqlite3, no
//      HTTP, no JSON); targets: the walk within 2x the scan, the stream within 1.5x.
// Run with `npm run bench -- --only export` (writes its section of bench/RESULTS.md), or
// `tsx bench/export.ts [--rows N]` alone (prints, writes nothing; `npm run build` first).
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startChild, type RunningChild } from './lib/child.js';
import { closeClient, fetchAll, type Fetched } from './lib/export-client.js';
import { createExportDataset, type ExportDataset } from './lib/export-dataset.js';
import { median } from './lib/stats.js';

export interface ExportOptions {
  rows: number;
  /** The deep page of (a), at 100 per page. */
  deepPage: number;
  /** Sequential walks to page `deepPage` in (a), each with a filter of its own (cold caches). */
  walks: number;
  /** Rounds of (b); the median is reported. */
  rounds: number;
}

export const EXPORT_OPTIONS: ExportOptions = { rows: 1_000_000, deepPage: 9000, walks: 3, rounds: 5 };

export interface Timing {
  name: string;
  /** Seconds per round (wall clock). */
  seconds: number[];
  /** CPU seconds per round of the process doing the work: this one for the scans, the service for HTTP. */
  cpuSeconds: number[];
  rows: number;
  bytes?: number;
  /** Share of the reference's median time at most (undefined: shown for information). */
  maxRatio?: number;
}

export interface ExportSection {
  options: ExportOptions;
  dataset: ExportDataset;
  deep: {
    /** Per walk: page 1, the deep page, and the mean of the first and last 100 pages of the walk. */
    page1Ms: number[];
    deepMs: number[];
    first100MeanMs: number[];
    last100MeanMs: number[];
    /** After the walk: page 1 read again, and the deep page read again by a seek after the known boundary (no read-ahead). */
    page1AgainMs: number[];
    deepSeekMs: number[];
    /** The deep page asked for directly, without a walk before it (OFFSET from the top). */
    coldDeepMs: number[];
    maxRatio: number;
  };
  whole: { reference: Timing; rows: Timing[] };
  sessionActions: { reference: Timing; rows: Timing[] };
}

const SERVICE_ENV = {
  LOG_LEVEL: 'warn',
  WORKER: 'off',
  // A crawl of every page, several times over: out of the way of the per-user limit.
  DATA_EXPORT_RATE_LIMIT: '100000000/1m',
};

export async function benchExport(tmp: string, root: string, options: ExportOptions, log: (line: string) => void): Promise<ExportSection> {
  log(`export: generating ${options.rows.toLocaleString('en-US')} sales-history rows and as many session actions`);
  const dataset = await createExportDataset(join(tmp, 'export.db'), options.rows, log);
  log(`  generated in ${dataset.seconds.toFixed(1)} s (${dataset.salesLines.toLocaleString('en-US')} order lines)`);
  const child = await startChild(
    { script: 'dist/main.js', args: ['serve'], env: { DATABASE_URL: `sqlite:${dataset.file}`, ...SERVICE_ENV }, readyPath: '/site/health' },
    root,
  );
  const scan = new BetterSqlite3(dataset.file, { readonly: true });
  try {
    const api = exportApi(child, dataset);
    await api.check(options.rows);
    const deep = await deepPaging(api, options, log);
    const whole = await wholeCollection(api, child, scan, options, log, 'sales-history');
    const sessionActions = await wholeCollection(api, child, scan, { ...options, rounds: 1 }, log, 'session');
    return { options, dataset, deep, whole, sessionActions };
  } finally {
    scan.close();
    closeClient();
    await child.stop();
  }
}

type Api = ReturnType<typeof exportApi>;

function exportApi(child: RunningChild, dataset: ExportDataset) {
  const authorization = `Basic ${Buffer.from(`${dataset.user.name}:${dataset.user.password}`).toString('base64')}`;
  const get = (path: string, marker: string, accept = 'application/json'): Promise<Fetched> =>
    fetchAll(`${child.baseUrl}/export${path}`, { authorization, accept }, marker).then((fetched) => {
      if (fetched.status !== 200) throw new Error(`GET /export${path}: ${fetched.status}`);
      return fetched;
    });
  return {
    get,
    /** The first page answers with the expected total, and the credentials are verified (and remembered). */
    async check(rows: number): Promise<void> {
      const first = await get('/sales-history?per-page=10', '{"order":');
      if (first.headers['x-pagination-total-count'] !== String(rows) || first.items !== 10) {
        throw new Error(`unexpected first page: total ${String(first.headers['x-pagination-total-count'])}, ${first.items} items`);
      }
    },
  };
}

/** A filter that takes every row but is a new key for the service's caches: a cold start. */
let filters = 0;
const freshFilter = () => {
  filters += 1;
  const second = String(filters % 60).padStart(2, '0');
  const minute = String(Math.floor(filters / 60) % 60).padStart(2, '0');
  return `createdFrom=1970-01-01%2000:${minute}:${second}`;
};

async function deepPaging(api: Api, options: ExportOptions, log: (line: string) => void): Promise<ExportSection['deep']> {
  const result: ExportSection['deep'] = {
    page1Ms: [],
    deepMs: [],
    first100MeanMs: [],
    last100MeanMs: [],
    page1AgainMs: [],
    deepSeekMs: [],
    coldDeepMs: [],
    maxRatio: 2,
  };
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  for (let walk = 1; walk <= options.walks; walk += 1) {
    const filter = freshFilter();
    // The count of a filter is made once and then reused; it is made here, so the walk times pages.
    await api.get(`/sales-history?${filter}&per-page=1`, '{"order":');
    const latencies: number[] = [];
    for (let page = 1; page <= options.deepPage; page += 1) {
      const fetched = await api.get(`/sales-history?${filter}&per-page=100&page=${page}`, '{"order":');
      if (fetched.items !== 100) throw new Error(`page ${page}: ${fetched.items} items`);
      latencies.push(fetched.ms);
    }
    result.page1Ms.push(latencies[0]!);
    result.deepMs.push(latencies.at(-1)!);
    result.first100MeanMs.push(mean(latencies.slice(0, 100)));
    result.last100MeanMs.push(mean(latencies.slice(-100)));
    // Served pages are not read ahead again: these two are plain reads, the second a keyset seek.
    result.page1AgainMs.push((await api.get(`/sales-history?${filter}&per-page=100&page=1`, '{"order":')).ms);
    result.deepSeekMs.push((await api.get(`/sales-history?${filter}&per-page=100&page=${options.deepPage}`, '{"order":')).ms);
    const cold = freshFilter();
    await api.get(`/sales-history?${cold}&per-page=1`, '{"order":');
    result.coldDeepMs.push((await api.get(`/sales-history?${cold}&per-page=100&page=${options.deepPage}`, '{"order":')).ms);
    log(
      `  walk ${walk}: page 1 ${latencies[0]!.toFixed(2)} ms, page ${options.deepPage} ${latencies.at(-1)!.toFixed(2)} ms; ` +
        `again: page 1 ${result.page1AgainMs.at(-1)!.toFixed(2)} ms, page ${options.deepPage} by seek ${result.deepSeekMs.at(-1)!.toFixed(2)} ms; ` +
        `cold page ${options.deepPage} ${result.coldDeepMs.at(-1)!.toFixed(1)} ms`,
    );
  }
  return result;
}

interface Collection {
  path: string;
  table: string;
  marker: string;
  /** Child rows read with each batch (the order lines of sales history). */
  children?: string;
}

const COLLECTIONS: Record<'sales-history' | 'session', Collection> = {
  'sales-history': {
    path: '/sales-history',
    table: 'sales_history',
    marker: '{"order":',
    children:
      'select sales_history_id, product_code from sales_history_item where sales_history_id in ({ids}) order by sales_history_id, position',
  },
  session: { path: '/session', table: 'session_action', marker: '{"session":' },
};

/** A plain keyset scan over the rows (and their children) in batches of 1000, as the export reads them. */
function keysetScan(db: BetterSqlite3.Database, collection: Collection, withChildren: boolean): number {
  const first = db.prepare(`select * from ${collection.table} order by created_at, id limit 1000`);
  const after = db.prepare(
    `select * from ${collection.table} where created_at >= ? and (created_at > ? or id > ?) order by created_at, id limit 1000`,
  );
  const children = new Map<number, BetterSqlite3.Statement>();
  let rows = 0;
  let batch = first.all() as Array<{ id: number; created_at: number }>;
  while (batch.length > 0) {
    rows += batch.length;
    if (withChildren && collection.children) {
      let statement = children.get(batch.length);
      if (!statement) {
        statement = db.prepare(collection.children.replace('{ids}', new Array(batch.length).fill('?').join(',')));
        children.set(batch.length, statement);
      }
      statement.all(...batch.map((row) => row.id));
    }
    if (batch.length < 1000) break;
    const last = batch.at(-1)!;
    batch = after.all(last.created_at, last.created_at, last.id) as typeof batch;
  }
  return rows;
}

/** Runs `work` and adds its wall and CPU seconds to the timing. */
async function timed<T>(timing: Timing, cpu: () => number, work: () => Promise<T> | T): Promise<T> {
  const cpuBefore = cpu();
  const started = performance.now();
  const result = await work();
  timing.seconds.push((performance.now() - started) / 1000);
  timing.cpuSeconds.push(cpu() - cpuBefore);
  return result;
}

const ownCpu = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

async function wholeCollection(
  api: Api,
  child: RunningChild,
  db: BetterSqlite3.Database,
  options: ExportOptions,
  log: (line: string) => void,
  name: keyof typeof COLLECTIONS,
): Promise<{ reference: Timing; rows: Timing[] }> {
  const collection = COLLECTIONS[name];
  const scan: Timing = {
    name: `plain keyset scan in this process${collection.children ? ' (rows and their order lines)' : ''}`,
    seconds: [],
    cpuSeconds: [],
    rows: 0,
  };
  const tableOnly: Timing = { name: 'plain keyset scan of the table alone (information)', seconds: [], cpuSeconds: [], rows: 0 };
  const walk: Timing = {
    name: `walk every page at 1000 per page (\`GET /export${collection.path}?per-page=1000&page=N\`)`,
    seconds: [],
    cpuSeconds: [],
    rows: 0,
    bytes: 0,
    maxRatio: 2,
  };
  const stream: Timing = {
    name: `NDJSON stream (\`Accept: application/x-ndjson\`)`,
    seconds: [],
    cpuSeconds: [],
    rows: 0,
    bytes: 0,
    maxRatio: 1.5,
  };
  const expect = (timing: Timing, rows: number) => {
    if (rows !== options.rows) throw new Error(`${timing.name}: ${rows} rows, expected ${options.rows}`);
    timing.rows = rows;
  };
  const serviceCpu = () => child.cpuSeconds() ?? 0;
  for (let round = 1; round <= options.rounds; round += 1) {
    // Interleaved, so a slow moment of the machine hits every variant alike.
    expect(scan, await timed(scan, ownCpu, () => keysetScan(db, collection, true)));
    expect(tableOnly, await timed(tableOnly, ownCpu, () => keysetScan(db, collection, false)));
    // Sales history takes a window: a new one each round starts the service's caches cold.
    const window = name === 'sales-history' ? `${freshFilter()}&` : '';
    const walked = await timed(walk, serviceCpu, async () => {
      let rows = 0;
      let bytes = 0;
      for (let page = 1; ; page += 1) {
        const fetched = await api.get(`${collection.path}?${window}per-page=1000&page=${page}`, collection.marker);
        rows += fetched.items;
        bytes += fetched.bytes;
        if (fetched.items < 1000) return { rows, bytes };
      }
    });
    expect(walk, walked.rows);
    walk.bytes = walked.bytes;
    const streamed = await timed(stream, serviceCpu, () => api.get(collection.path, collection.marker, 'application/x-ndjson'));
    expect(stream, streamed.items);
    stream.bytes = streamed.bytes;
    const last = (timing: Timing) => `${timing.seconds.at(-1)!.toFixed(2)} s (cpu ${timing.cpuSeconds.at(-1)!.toFixed(2)})`;
    log(`  ${name} round ${round}: scan ${last(scan)}, table alone ${last(tableOnly)}, walk ${last(walk)}, stream ${last(stream)}`);
  }
  return { reference: scan, rows: [tableOnly, walk, stream] };
}

/** Whether the section meets its targets. */
export function exportPasses(section: ExportSection): boolean {
  const { deep } = section;
  const deepRatio = median(deep.deepMs) / median(deep.page1Ms);
  const seekRatio = median(deep.deepSeekMs) / median(deep.page1AgainMs);
  const reference = median(section.whole.reference.seconds);
  return (
    deepRatio <= deep.maxRatio &&
    seekRatio <= deep.maxRatio &&
    section.whole.rows.every((row) => row.maxRatio === undefined || median(row.seconds) / reference <= row.maxRatio)
  );
}

// Standalone: `tsx bench/export.ts [--rows N]`.
if (process.argv[1]?.endsWith('export.ts')) {
  const { mkdtempSync, mkdirSync, rmSync } = await import('node:fs');
  const { dirname } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const { parseArgs } = await import('node:util');
  const { renderExportSection } = await import('./lib/export-report.js');
  const { pinLoadGenerator, killAllChildren } = await import('./lib/child.js');
  const { values } = parseArgs({ options: { rows: { type: 'string' } } });
  const benchDir = dirname(fileURLToPath(import.meta.url));
  mkdirSync(join(benchDir, '.tmp'), { recursive: true });
  const tmp = mkdtempSync(join(benchDir, '.tmp', 'export-'));
  const rows = values.rows === undefined ? EXPORT_OPTIONS.rows : Number(values.rows);
  const options = { ...EXPORT_OPTIONS, rows, deepPage: Math.min(EXPORT_OPTIONS.deepPage, Math.floor(rows / 100)) };
  const pinned = pinLoadGenerator();
  try {
    const section = await benchExport(tmp, dirname(benchDir), options, (line) => process.stdout.write(`${line}\n`));
    process.stdout.write(
      `\n${renderExportSection(section, { date: new Date(), command: `tsx bench/export.ts --rows ${rows}`, pinned })}\n`,
    );
  } finally {
    killAllChildren();
    rmSync(tmp, { recursive: true, force: true });
  }
}

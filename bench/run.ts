// `npm run bench`: HTTP throughput of the service against a raw node:http ceiling, and a
// primary-key read through db/ against raw better-sqlite3, all in one run; writes bench/RESULTS.md.
// To add an HTTP scenario, add one entry to SCENARIOS (and a server to SERVERS if it needs one).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchDbRead, type MicroOptions } from './db-read.js';
import { killAllChildren, pinLoadGenerator, startChild, type ChildSpec, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadOptions, type LoadResult } from './lib/http-load.js';
import { httpPasses, microPasses, renderReport, type HttpRow } from './lib/report.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH_DIR);

type ServerName = 'ceiling' | 'service';

/** How to start each server; `tmp` is this run's scratch directory. */
const SERVERS: Record<ServerName, (tmp: string) => ChildSpec> = {
  ceiling: () => ({ script: 'bench/ceiling-server.ts', readyPath: '/' }),
  service: (tmp) => ({
    script: 'src/main.ts',
    args: ['serve', '--seed-demo'],
    env: { DATABASE_URL: `sqlite:${join(tmp, 'service.db')}`, LOG_LEVEL: 'warn', BASE_PATH: '' },
    readyPath: '/site/health',
  }),
};

interface Scenario {
  name: string;
  server: ServerName;
  path: string;
  /** Share of the ceiling's requests/s to reach; none for the ceiling itself. */
  target?: number;
}

/** The reference every ratio is taken against. */
const CEILING: Scenario = { name: 'ceiling: raw `node:http`, small JSON', server: 'ceiling', path: '/' };

const SCENARIOS: Scenario[] = [
  { name: '`GET /site/health`', server: 'service', path: '/site/health', target: 0.7 },
  { name: '`GET /country?per-page=20`', server: 'service', path: '/country?per-page=20', target: 0.45 },
];

const MICRO: MicroOptions = { rounds: 5, roundMs: 1000, warmupMs: 500 };

/** This run's scratch directory under bench/.tmp/ (gitignored); removed however the run ends. */
let scratch: string | undefined;

function options(): { load: LoadOptions; command: string } {
  const { values } = parseArgs({ options: { duration: { type: 'string' } }, strict: true });
  const given = values.duration ?? process.env.BENCH_DURATION;
  const duration = given === undefined || given === '' ? 10 : Number(given);
  if (!Number.isInteger(duration) || duration < 1 || duration > 600) {
    throw new Error(`--duration (or BENCH_DURATION) must be whole seconds from 1 to 600, got "${given}"`);
  }
  const command = values.duration === undefined ? 'npm run bench' : `npm run bench -- --duration ${duration}`;
  const prefix = values.duration === undefined && given !== undefined && given !== '' ? `BENCH_DURATION=${duration} ` : '';
  const load = { connections: 50, pipelining: 1, warmupSeconds: 3, durationSeconds: duration, sliceSeconds: 2 };
  return { load, command: prefix + command };
}

async function runHttp(load: LoadOptions, tmp: string): Promise<{ ceiling: HttpRow; rows: HttpRow[] }> {
  const all = [CEILING, ...SCENARIOS];
  const children: RunningChild[] = [];
  try {
    // Every server is up for the whole run (idle ones cost nothing), so the slices can take turns.
    const started = new Map<ServerName, RunningChild>();
    for (const server of new Set(all.map((s) => s.server))) {
      const child = await startChild(SERVERS[server](tmp), ROOT);
      children.push(child);
      started.set(server, child);
    }
    log(`http: ${all.length} targets, ${load.warmupSeconds} s warm-up each, then ${load.durationSeconds} s each in ${load.sliceSeconds} s slices`);
    const results = await measureInterleaved(
      all.map((s) => {
        const child = started.get(s.server) as RunningChild;
        return { name: s.name, url: `${child.baseUrl}${s.path}`, serverCpuSeconds: child.cpuSeconds };
      }),
      load,
    );
    const row = (s: Scenario): HttpRow => {
      const result = results.get(s.name) as LoadResult;
      log(`  ${s.name}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors}`);
      return { name: s.name, result, target: s.target };
    };
    return { ceiling: row(CEILING), rows: SCENARIOS.map(row) };
  } finally {
    for (const child of children) await child.stop();
  }
}

async function main(): Promise<void> {
  const { load, command } = options();
  const machine = {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    os: `${type()} ${release()}`,
    loadAverage: loadavg()[0] ?? 0,
  };
  const pinned = pinLoadGenerator();
  const tmpRoot = join(BENCH_DIR, '.tmp');
  mkdirSync(tmpRoot, { recursive: true });
  const tmp = (scratch = mkdtempSync(join(tmpRoot, 'run-')));
  // Everything is bounded; this is the backstop if something hangs anyway.
  const budgetMs = ((load.warmupSeconds + load.durationSeconds) * (SCENARIOS.length + 1) + 120) * 1000;
  const watchdog = setTimeout(() => fail(new Error(`benchmark exceeded its ${budgetMs / 1000} s budget`)), budgetMs);
  watchdog.unref();
  try {
    const date = new Date();
    const http = await runHttp(load, tmp);
    log('micro: primary-key read, db/ vs raw better-sqlite3');
    const microRows = await benchDbRead(join(tmp, 'db-read.db'), MICRO);
    const markdown = renderReport({
      date,
      command,
      machine: { ...machine, pinned },
      load,
      ceiling: http.ceiling,
      http: http.rows,
      micro: MICRO,
      microRows,
    });
    writeFileSync(join(BENCH_DIR, 'RESULTS.md'), markdown);
    for (const row of http.rows) {
      const ratio = row.result.requestsPerSecond / http.ceiling.result.requestsPerSecond;
      log(`${httpPasses(row, http.ceiling.result) ? 'pass' : 'FAIL'}  ${row.name}: ${(ratio * 100).toFixed(1)} % of ceiling (target ${((row.target ?? 0) * 100).toFixed(0)} %)`);
    }
    for (const row of microRows.slice(1)) {
      log(`${row.target === undefined ? 'info' : microPasses(row) ? 'pass' : 'FAIL'}  ${row.name}: ${(row.ratio * 100).toFixed(1)} % of raw`);
    }
    log(`wrote ${join('bench', 'RESULTS.md')}`);
  } finally {
    clearTimeout(watchdog);
    cleanUp();
  }
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function cleanUp(): void {
  killAllChildren();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
}

function fail(err: unknown): never {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  cleanUp();
  process.exit(1);
}

process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => fail(new Error(`stopped by ${signal}`)));
main().then(() => process.exit(0), fail);

// `npm run bench`: every part, each writing its section of bench/RESULTS.md (lib/results-file.ts):
// - core: HTTP throughput of the service against a raw node:http ceiling (http), a primary-key read
//   through db/ against raw better-sqlite3 (micro) and /site/health latency under login load (login);
//   the section is written only when all three ran (`--only core` runs the three and writes it;
//   `--only http|micro|login` prints, writes nothing);
// - catalogue: product details and category lists on a 200,000-product catalogue (`--only catalogue`).
// - search: product search, autocomplete and facets on the same catalogue, SQLite and (with
//   BENCH_POSTGRES_URL) PostgreSQL (`--only search`).
// - export: the data-export API on 1,000,000 sales-history rows: deep paging, page walk and NDJSON
//   stream against a plain keyset scan (`--only export`; BENCH_EXPORT_ROWS for a smaller try-out).
// - stall: another shopper's product page alone and while 4 connections hammer a degenerate search
//   (`--only stall`; BENCH_STALL_BEFORE=<main.js of another build> measures that build first).
// To add an HTTP scenario to the core, add one entry to SCENARIOS (and a server to SERVERS if it needs one).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchCatalogue, CATALOGUE_OPTIONS } from './catalogue.js';
import { benchDbRead, type MicroOptions } from './db-read.js';
import { benchExport, EXPORT_OPTIONS, exportPasses } from './export.js';
import { killAllChildren, pinLoadGenerator, startChild, type ChildSpec, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadOptions, type LoadResult } from './lib/http-load.js';
import { httpPasses, microPasses, renderReport, type HttpRow } from './lib/report.js';
import { renderLoginSection } from './lib/report-login.js';
import { renderCatalogueSection } from './lib/catalogue-report.js';
import { renderExportSection } from './lib/export-report.js';
import { renderSearchSection } from './lib/search-report.js';
import { benchSearch } from './search.js';
import { benchStall, renderStallSection, STALL_OPTIONS, stallPasses } from './search-stall.js';
import { writeResultsSection } from './lib/results-file.js';
import { benchLogin, importLoginUsers, LOGIN_SERVICE_ENV, loginPasses, type LoginOptions, type LoginSection } from './login.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH_DIR);

type ServerName = 'ceiling' | 'service';

/** The service on its own SQLite file, from the compiled build (built at the start of the run). */
const serviceSpec = (dbFile: string, env: Record<string, string> = {}): ChildSpec => ({
  script: 'dist/main.js',
  args: ['serve', '--seed-demo'],
  env: { DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'warn', BASE_PATH: '', ...env },
  readyPath: '/site/health',
});

/** How to start each server; `tmp` is this run's scratch directory. */
const SERVERS: Record<ServerName, (tmp: string) => ChildSpec> = {
  ceiling: () => ({ script: 'bench/ceiling-server.mjs', readyPath: '/' }),
  service: (tmp) => serviceSpec(join(tmp, 'service.db')),
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

/** The login section; warm-up and measured seconds come from the HTTP load options. */
const loginOptionsFor = (load: LoadOptions): LoginOptions => ({
  users: 20,
  connections: 20,
  probe: { ratePerSecond: 200, maxSockets: 10, timeoutMs: 10_000 },
  warmupSeconds: load.warmupSeconds,
  durationSeconds: load.durationSeconds,
  // Longer than the HTTP slices: a login takes hundreds of ms under this load.
  sliceSeconds: 5,
  leadSeconds: 1,
  settleSeconds: 1,
  maxP99Ratio: 3,
});

const PARTS = ['http', 'micro', 'login', 'catalogue', 'search', 'export', 'stall'] as const;
/** What `--only` accepts: a part, or `core` for the three parts of the core section (so that it can be rewritten alone). */
const ONLY = [...PARTS, 'core'] as const;
const CORE_PARTS: readonly Part[] = ['http', 'micro', 'login'];
/** Sections of bench/RESULTS.md in the order they appear; see lib/results-file.ts. */
const RESULT_SECTIONS = ['core', 'catalogue', 'search', 'stall', 'export'] as const;
type Part = (typeof PARTS)[number];

/** This run's scratch directory under bench/.tmp/ (gitignored); removed however the run ends. */
let scratch: string | undefined;

type Only = (typeof ONLY)[number];

function options(): { load: LoadOptions; command: string; only: Only | undefined } {
  const { values } = parseArgs({ options: { duration: { type: 'string' }, only: { type: 'string' } }, strict: true });
  const only = ONLY.find((part) => part === values.only);
  if (values.only !== undefined && only === undefined) throw new Error(`--only must be one of ${ONLY.join(', ')}, got "${values.only}"`);
  const given = values.duration ?? process.env.BENCH_DURATION;
  const duration = given === undefined || given === '' ? 10 : Number(given);
  if (!Number.isInteger(duration) || duration < 1 || duration > 600) {
    throw new Error(`--duration (or BENCH_DURATION) must be whole seconds from 1 to 600, got "${given}"`);
  }
  const args = [
    ...(values.duration === undefined ? [] : ['--duration', String(duration)]),
    ...(only === undefined ? [] : ['--only', only]),
  ];
  const command = args.length === 0 ? 'npm run bench' : `npm run bench -- ${args.join(' ')}`;
  const prefix = values.duration === undefined && given !== undefined && given !== '' ? `BENCH_DURATION=${duration} ` : '';
  const load = { connections: 50, pipelining: 1, warmupSeconds: 3, durationSeconds: duration, sliceSeconds: 2 };
  return { load, command: prefix + command, only };
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
    log(
      `http: ${all.length} targets, ${load.warmupSeconds} s warm-up each, then ${load.durationSeconds} s each in ${load.sliceSeconds} s slices`,
    );
    const results = await measureInterleaved(
      all.map((s) => {
        const child = started.get(s.server) as RunningChild;
        return { name: s.name, url: `${child.baseUrl}${s.path}`, serverCpuSeconds: child.cpuSeconds };
      }),
      load,
    );
    const row = (s: Scenario): HttpRow => {
      const result = results.get(s.name) as LoadResult;
      log(
        `  ${s.name}: ${Math.round(result.requestsPerSecond)} req/s, p99 ${result.p99Ms} ms, server CPU ${cpuText(result.serverCpuMicros)} µs/req, non-2xx ${result.non2xx}, errors ${result.errors}`,
      );
      return { name: s.name, result, target: s.target };
    };
    return { ceiling: row(CEILING), rows: SCENARIOS.map(row) };
  } finally {
    for (const child of children) await child.stop();
  }
}

/** Server CPU per answered request; on a shared machine a steadier figure than req/s. */
const cpuText = (micros: number | undefined): string => (micros === undefined ? '—' : micros.toFixed(1));

/** The login section on a service process of its own, its users imported before it starts. */
async function runLogin(options: LoginOptions, tmp: string): Promise<LoginSection> {
  const dbFile = join(tmp, 'login.db');
  log(`login: importing ${options.users} users`);
  const users = await importLoginUsers(dbFile, tmp, ROOT, options.users);
  const child = await startChild(serviceSpec(dbFile, LOGIN_SERVICE_ENV), ROOT);
  try {
    log(
      `login: ${options.connections} login clients, health probe at ${options.probe.ratePerSecond} req/s; ${options.warmupSeconds} s warm-up each, then ${options.durationSeconds} s per phase in ${options.sliceSeconds} s slices`,
    );
    const section = await benchLogin(child, users, options);
    const { login: l, healthAlone: alone, healthLoaded: loaded } = section;
    log(
      `  login alone: ${l.requestsPerSecond.toFixed(1)} req/s, p50 ${l.p50Ms.toFixed(1)} ms, p99 ${l.p99Ms.toFixed(1)} ms, non-2xx ${l.non2xx}, errors ${l.errors}`,
    );
    log(
      `  health alone: p50 ${alone.p50Ms.toFixed(2)} ms, p99 ${alone.p99Ms.toFixed(2)} ms; under login load: p50 ${loaded.p50Ms.toFixed(2)} ms, p99 ${loaded.p99Ms.toFixed(2)} ms`,
    );
    return section;
  } finally {
    await child.stop();
  }
}

async function main(): Promise<void> {
  const { load, command, only } = options();
  const runs = (part: Part) => only === undefined || only === part || (only === 'core' && CORE_PARTS.includes(part));
  const loginOptions = loginOptionsFor(load);
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
  const loginSlices = Math.ceil(loginOptions.durationSeconds / loginOptions.sliceSeconds);
  const loginSeconds =
    2 * loginOptions.warmupSeconds +
    3 * loginOptions.durationSeconds +
    (2 * loginOptions.leadSeconds + 2 * loginOptions.settleSeconds) * loginSlices +
    60;
  // The catalogue part generates its dataset first (a few minutes at 200,000 products).
  const catalogueSeconds = runs('catalogue') ? 900 + (load.warmupSeconds + load.durationSeconds) * 9 : 0;
  // The search part may generate its datasets (SQLite unless the catalogue part left one, PostgreSQL), then 2 × 19 targets.
  const searchSeconds = runs('search') ? 1800 + (load.warmupSeconds + load.durationSeconds) * 38 : 0;
  // The export part generates 2,000,000 rows, then walks 3 × 9,000 pages and the whole collection 3 times.
  const exportSeconds = runs('export') ? 1800 : 0;
  // The stall part: up to two builds, each a warm-up and two phases of the duration, plus seeding the demo.
  // Four services at most (the before build, this build, and this build cold with the read pool off and on).
  const stallSeconds = runs('stall') ? 4 * (load.warmupSeconds + 2 * load.durationSeconds + 120) : 0;
  const budgetMs =
    ((load.warmupSeconds + load.durationSeconds) * (SCENARIOS.length + 1) +
      120 +
      loginSeconds +
      catalogueSeconds +
      searchSeconds +
      exportSeconds +
      stallSeconds) *
    1000;
  const watchdog = setTimeout(() => fail(new Error(`benchmark exceeded its ${budgetMs / 1000} s budget`)), budgetMs);
  watchdog.unref();
  try {
    const date = new Date();
    if (runs('http') || runs('login') || runs('catalogue') || runs('search') || runs('export') || runs('stall')) {
      // The service is measured as it runs in production: compiled, without a TypeScript loader.
      log('building dist/ (npm run build)');
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    }
    const http = runs('http') ? await runHttp(load, tmp) : undefined;
    if (runs('micro')) log('micro: primary-key read, db/ vs raw better-sqlite3');
    const microRows = runs('micro') ? await benchDbRead(join(tmp, 'db-read.db'), MICRO) : undefined;
    const loginSection = runs('login') ? await runLogin(loginOptions, tmp) : undefined;
    if (runs('catalogue')) {
      // BENCH_CATALOGUE_PRODUCTS makes a smaller catalogue for trying the part out; the report says the size.
      const products = Number(process.env.BENCH_CATALOGUE_PRODUCTS || CATALOGUE_OPTIONS.products);
      const section = await benchCatalogue(tmp, ROOT, serviceSpec, load, { ...CATALOGUE_OPTIONS, products }, log);
      const machineLine = `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ${machine.os}; load average ${machine.loadAverage.toFixed(2)} at the start`;
      writeResultsSection(
        join(BENCH_DIR, 'RESULTS.md'),
        'catalogue',
        renderCatalogueSection(section, { date, command, pinned, load, machine: machineLine }),
        RESULT_SECTIONS,
      );
      logHttpVerdicts(section.ceiling, section.rows);
      log(`wrote the catalogue section of ${join('bench', 'RESULTS.md')}`);
    }
    if (runs('search')) {
      const products = Number(process.env.BENCH_CATALOGUE_PRODUCTS || CATALOGUE_OPTIONS.products);
      const section = await benchSearch(
        tmp,
        ROOT,
        serviceSpec,
        load,
        { products, postgresUrl: process.env.BENCH_POSTGRES_URL || undefined },
        log,
      );
      const machineLine = `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ${machine.os}; load average ${machine.loadAverage.toFixed(2)} at the start`;
      writeResultsSection(
        join(BENCH_DIR, 'RESULTS.md'),
        'search',
        renderSearchSection(section, { date, command, pinned, load, machine: machineLine }),
        RESULT_SECTIONS,
      );
      for (const run of section.runs) {
        log(`search on ${run.engine}:`);
        logHttpVerdicts(run.ceiling, run.rows);
      }
      for (const reason of section.skipped) log(`info  search not run on ${reason}`);
      log(`wrote the search section of ${join('bench', 'RESULTS.md')}`);
    }
    if (runs('stall')) {
      const options = { ...STALL_OPTIONS, warmupSeconds: load.warmupSeconds, durationSeconds: load.durationSeconds };
      const section = await benchStall(tmp, ROOT, serviceSpec, options, log);
      const machineLine = `${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ${machine.os}; load average ${machine.loadAverage.toFixed(2)} at the start`;
      writeResultsSection(
        join(BENCH_DIR, 'RESULTS.md'),
        'stall',
        renderStallSection(section, { date, command: stallCommand(command), machine: machineLine, pinned }),
        RESULT_SECTIONS,
      );
      for (const run of section.runs)
        log(`${stallPasses(run, options) ? 'pass' : 'FAIL'}  stall (${run.build}): shopper p50 attacked / quiet ${run.ratio.toFixed(2)}×`);
      log(`wrote the stall section of ${join('bench', 'RESULTS.md')}`);
    }
    if (runs('export')) {
      const rows = Number(process.env.BENCH_EXPORT_ROWS || EXPORT_OPTIONS.rows);
      const options = { ...EXPORT_OPTIONS, rows, deepPage: Math.min(EXPORT_OPTIONS.deepPage, Math.floor(rows / 100)) };
      const section = await benchExport(tmp, ROOT, options, log);
      writeResultsSection(
        join(BENCH_DIR, 'RESULTS.md'),
        'export',
        renderExportSection(section, { date, command, pinned }),
        RESULT_SECTIONS,
      );
      log(`${exportPasses(section) ? 'pass' : 'FAIL'}  data export: deep paging and whole-collection targets (see the export section)`);
      log(`wrote the export section of ${join('bench', 'RESULTS.md')}`);
    }
    if (!http || !microRows || !loginSection) {
      // A partial run of the core (--only) is for development: it prints, and its section stays a full run's.
      if (loginSection) log(`\n${renderLoginSection(loginSection, pinned)}`);
      if (loginSection) logLoginVerdict(loginSection);
      if (http || microRows || loginSection)
        log('partial run of the core: its section of bench/RESULTS.md not written (--only core writes it)');
      return;
    }
    const markdown = renderReport({
      date,
      command,
      machine: { ...machine, pinned },
      load,
      ceiling: http.ceiling,
      http: http.rows,
      micro: MICRO,
      microRows,
      login: loginSection,
    });
    writeResultsSection(join(BENCH_DIR, 'RESULTS.md'), 'core', markdown, RESULT_SECTIONS);
    logHttpVerdicts(http.ceiling, http.rows);
    for (const row of microRows.slice(1)) {
      log(
        `${row.target === undefined ? 'info' : microPasses(row) ? 'pass' : 'FAIL'}  ${row.name}: ${(row.ratio * 100).toFixed(1)} % of raw`,
      );
    }
    logLoginVerdict(loginSection);
    log(`wrote ${join('bench', 'RESULTS.md')}`);
  } finally {
    clearTimeout(watchdog);
    cleanUp();
  }
}

/** The command that wrote the stall section, with the before build it compared when there was one. */
function stallCommand(command: string): string {
  return process.env.BENCH_STALL_BEFORE ? `BENCH_STALL_BEFORE=${process.env.BENCH_STALL_BEFORE} ${command}` : command;
}

function logHttpVerdicts(ceiling: HttpRow, rows: HttpRow[]): void {
  for (const row of rows) {
    const ratio = row.result.requestsPerSecond / ceiling.result.requestsPerSecond;
    const verdict = httpPasses(row, ceiling.result) ? (row.target === undefined ? 'info' : 'pass') : 'FAIL';
    const target = row.target === undefined ? 'no target' : `target ${(row.target * 100).toFixed(0)} %`;
    log(`${verdict}  ${row.name}: ${(ratio * 100).toFixed(1)} % of ceiling (${target}), p99 ${row.result.p99Ms} ms`);
  }
}

function logLoginVerdict(section: LoginSection): void {
  const { healthLoaded, healthAlone, p99Ratio, options: o } = section;
  log(
    `${loginPasses(section) ? 'pass' : 'FAIL'}  GET /site/health p99 under login load: ${p99Ratio.toFixed(2)}× alone (${healthLoaded.p99Ms.toFixed(2)} / ${healthAlone.p99Ms.toFixed(2)} ms, target ≤ ${o.maxP99Ratio}×)`,
  );
  log(`info  login: ${section.login.requestsPerSecond.toFixed(1)} req/s at ${o.connections} connections`);
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

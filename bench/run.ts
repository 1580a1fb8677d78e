// `npm run bench`: HTTP throughput of the service against a raw node:http ceiling, a primary-key
// read through db/ against raw better-sqlite3, and /site/health latency under login load, all in
// one run; writes bench/RESULTS.md. `--only http|micro|login` runs one part and writes nothing.
// To add an HTTP scenario, add one entry to SCENARIOS (and a server to SERVERS if it needs one).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchDbRead, type MicroOptions } from './db-read.js';
import { killAllChildren, pinLoadGenerator, startChild, type ChildSpec, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadOptions, type LoadResult } from './lib/http-load.js';
import { httpPasses, microPasses, renderReport, type HttpRow } from './lib/report.js';
import { renderLoginSection } from './lib/report-login.js';
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

const PARTS = ['http', 'micro', 'login'] as const;
type Part = (typeof PARTS)[number];

/** This run's scratch directory under bench/.tmp/ (gitignored); removed however the run ends. */
let scratch: string | undefined;

function options(): { load: LoadOptions; command: string; only: Part | undefined } {
  const { values } = parseArgs({ options: { duration: { type: 'string' }, only: { type: 'string' } }, strict: true });
  const only = PARTS.find((part) => part === values.only);
  if (values.only !== undefined && only === undefined) throw new Error(`--only must be one of ${PARTS.join(', ')}, got "${values.only}"`);
  const given = values.duration ?? process.env.BENCH_DURATION;
  const duration = given === undefined || given === '' ? 10 : Number(given);
  if (!Number.isInteger(duration) || duration < 1 || duration > 600) {
    throw new Error(`--duration (or BENCH_DURATION) must be whole seconds from 1 to 600, got "${given}"`);
  }
  const command = values.duration === undefined ? 'npm run bench' : `npm run bench -- --duration ${duration}`;
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

/** The login section on a service process of its own, its users imported before it starts. */
async function runLogin(options: LoginOptions, tmp: string): Promise<LoginSection> {
  const dbFile = join(tmp, 'login.db');
  log(`login: importing ${options.users} users`);
  const users = await importLoginUsers(dbFile, tmp, ROOT, options.users);
  const child = await startChild(serviceSpec(dbFile, LOGIN_SERVICE_ENV), ROOT);
  try {
    log(`login: ${options.connections} login clients, health probe at ${options.probe.ratePerSecond} req/s; ${options.warmupSeconds} s warm-up each, then ${options.durationSeconds} s per phase in ${options.sliceSeconds} s slices`);
    const section = await benchLogin(child, users, options);
    const { login: l, healthAlone: alone, healthLoaded: loaded } = section;
    log(`  login alone: ${l.requestsPerSecond.toFixed(1)} req/s, p50 ${l.p50Ms.toFixed(1)} ms, p99 ${l.p99Ms.toFixed(1)} ms, non-2xx ${l.non2xx}, errors ${l.errors}`);
    log(`  health alone: p50 ${alone.p50Ms.toFixed(2)} ms, p99 ${alone.p99Ms.toFixed(2)} ms; under login load: p50 ${loaded.p50Ms.toFixed(2)} ms, p99 ${loaded.p99Ms.toFixed(2)} ms`);
    return section;
  } finally {
    await child.stop();
  }
}

async function main(): Promise<void> {
  const { load, command, only } = options();
  const runs = (part: Part) => only === undefined || only === part;
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
  const loginSeconds = 2 * loginOptions.warmupSeconds + 3 * loginOptions.durationSeconds + (2 * loginOptions.leadSeconds + 2 * loginOptions.settleSeconds) * loginSlices + 60;
  const budgetMs = ((load.warmupSeconds + load.durationSeconds) * (SCENARIOS.length + 1) + 120 + loginSeconds) * 1000;
  const watchdog = setTimeout(() => fail(new Error(`benchmark exceeded its ${budgetMs / 1000} s budget`)), budgetMs);
  watchdog.unref();
  try {
    const date = new Date();
    if (runs('http') || runs('login')) {
      // The service is measured as it runs in production: compiled, without a TypeScript loader.
      log('building dist/ (npm run build)');
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
    }
    const http = runs('http') ? await runHttp(load, tmp) : undefined;
    if (runs('micro')) log('micro: primary-key read, db/ vs raw better-sqlite3');
    const microRows = runs('micro') ? await benchDbRead(join(tmp, 'db-read.db'), MICRO) : undefined;
    const loginSection = runs('login') ? await runLogin(loginOptions, tmp) : undefined;
    if (!http || !microRows || !loginSection) {
      // A partial run (--only) is for development: it prints, and RESULTS.md stays a full run's.
      if (loginSection) log(`\n${renderLoginSection(loginSection, pinned)}`);
      if (loginSection) logLoginVerdict(loginSection);
      log('partial run (--only): bench/RESULTS.md not written');
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
    writeFileSync(join(BENCH_DIR, 'RESULTS.md'), markdown);
    for (const row of http.rows) {
      const ratio = row.result.requestsPerSecond / http.ceiling.result.requestsPerSecond;
      log(`${httpPasses(row, http.ceiling.result) ? 'pass' : 'FAIL'}  ${row.name}: ${(ratio * 100).toFixed(1)} % of ceiling (target ${((row.target ?? 0) * 100).toFixed(0)} %)`);
    }
    for (const row of microRows.slice(1)) {
      log(`${row.target === undefined ? 'info' : microPasses(row) ? 'pass' : 'FAIL'}  ${row.name}: ${(row.ratio * 100).toFixed(1)} % of raw`);
    }
    logLoginVerdict(loginSection);
    log(`wrote ${join('bench', 'RESULTS.md')}`);
  } finally {
    clearTimeout(watchdog);
    cleanUp();
  }
}

function logLoginVerdict(section: LoginSection): void {
  const { healthLoaded, healthAlone, p99Ratio, options: o } = section;
  log(`${loginPasses(section) ? 'pass' : 'FAIL'}  GET /site/health p99 under login load: ${p99Ratio.toFixed(2)}× alone (${healthLoaded.p99Ms.toFixed(2)} / ${healthAlone.p99Ms.toFixed(2)} ms, target ≤ ${o.maxP99Ratio}×)`);
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

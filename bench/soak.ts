// Soak: a mixed shopper load (browse, search, register, basket, checkout with payment) against
// one service process (the compiled build, its worker inline, as `serve` runs) for N minutes, then
// three checks on that process:
//   - the live JS heap (the troughs of heap used, after major collections) at the end is at most
//     10 % (+16 MB) above its value after the warm-up;
//   - resident memory at the end is within 10 % of its value after the warm-up (judged from runs of
//     10 minutes; a shorter run reports it, see RESIDENT_JUDGED_FROM_MIN): the anonymous part
//     (RssAnon: heap, buffers, everything a leak grows), not the pages of the database file that
//     SQLite maps (mmap_size) and that grow with the file as orders and accounts are written; VmRSS
//     and the file-backed part are reported beside it (medians of
//     the first span after the warm-up and the last span of the run, see judge());
//   - no file descriptors leak: /proc/<pid>/fd at the end, under the same load, is not above the
//     count after the warm-up (plus a small slack for sockets and SQLite files in flux);
//   - p99 latency did not drift: the median p99 of the last three windows is at most 1.5x that of
//     the first three after the warm-up (plus 10 ms, so a 4 ms p99 may be 16 ms on a noisy
//     machine); one window's p99 alone moves with whatever else the machine did in those seconds.
//
//   npm run build && npx tsx bench/soak.ts [--minutes 30] [--clients 8]
//
// The database is a fresh SQLite file with the demo bookstore (3,000 products). The section
// `soak` of bench/RESULTS.md is rewritten; the exit status is 1 when a check fails. Not part of the
// test suite (it runs for minutes); CI runs it with --minutes 2 (six 15 s p99 windows after the warm-up).
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { cpus, loadavg, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { seedDemo } from '../src/demo/seed.js';
import { createApiKey } from '../src/modules/admin/api-keys.service.js';
import { createEngine, foldAllQueued } from '../src/modules/search/index.js';
import { purchase } from './lib/buyers.js';
import { checkoutForm, importCourier, startBackoffice } from './lib/checkout-shop.js';
import { killAllChildren, startChild } from './lib/child.js';
import { writeResultsSection } from './lib/results-file.js';
import { soakSection, type ProcessSample, type SoakReport, type Window } from './lib/soak-report.js';
import { percentile } from './lib/stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '30' },
    clients: { type: 'string', default: '8' },
  },
  strict: true,
});
const minutes = Number(values.minutes);
const clients = Number(values.clients);
if (!(minutes > 0) || !Number.isInteger(clients) || clients < 1) throw new Error('--minutes > 0 and --clients >= 1, please');
if (!existsSync(join(ROOT, 'dist', 'main.js'))) throw new Error('run `npm run build` first: the soak measures the compiled build');

const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const totalMs = minutes * 60_000;
/** The first sixth of the run (at least 30 s) warms caches, JIT and pools; its numbers are not judged. */
const warmupMs = Math.max(30_000, totalMs / 6);
/** p99 windows after the warm-up: ten of them (at least 15 s each). */
const windowMs = Math.max(15_000, (totalMs - warmupMs) / 10);
const SAMPLE_MS = 2_000;
const METRICS_TOKEN = 'soak-metrics-token-0123456789abcdef';
const HEAP_SLACK_MB = 16;
/**
 * Resident memory is judged from runs this long. In a shorter run under full load V8 is still
 * sizing its heap: heap used saw-tooths between about 90 and 300 MB while each collection's
 * trough stays flat, and V8 raises the committed heap (and so resident memory) in steps of tens of
 * MB for minutes (two 3-minute runs on a quiet machine: +9 % and +40 % anonymous memory, the same
 * flat troughs). There the live heap above judges leaks, and resident memory is reported.
 */
const RESIDENT_JUDGED_FROM_MIN = 10;
const judgesResidentMemory = minutes >= RESIDENT_JUDGED_FROM_MIN;
const FD_SLACK = 8;

type Action = 'browse' | 'product' | 'search' | 'autocomplete' | 'register' | 'basket' | 'checkout';
/** How often each action is drawn (out of 100): mostly reading, as a shop's traffic is. */
const MIX: Array<[Action, number]> = [
  ['browse', 25],
  ['product', 25],
  ['search', 15],
  ['autocomplete', 10],
  ['basket', 15],
  ['register', 5],
  ['checkout', 5],
];
const WORDS = ['raamat', 'lugu', 'eesti', 'tõde', 'kevade', 'harry', 'sõda', 'aeg', 'maa', 'linn', 'mets', 'öö'];

async function main(): Promise<number> {
  const dir = join(ROOT, 'bench', '.tmp', 'soak');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const databaseUrl = `sqlite:${join(dir, 'shop.db')}`;
  log('preparing the demo bookstore');
  const database = createDatabase(databaseUrl);
  let productIds: number[];
  let apiKey: string;
  try {
    await migrateToLatest(database);
    await seedDemo(database, { now: Date.now() });
    await foldAllQueued(database, createEngine(database));
    // Books a guest in WEB sees and may order, with stock no run of purchases can exhaust.
    const rows = await database.db
      .selectFrom('product')
      .innerJoin('product_store', 'product_store.product_id', 'product.id')
      .select('product.id')
      .where('product_store.store_code', '=', 'WEB')
      .where('product.is_active', '=', true)
      .where('product.hidden_web', '=', false)
      .where('product.type', '=', 'BOOK')
      .where('product.availability', '=', 'AVAILABLE')
      .execute();
    productIds = rows.map((row) => Number(row.id));
    await database.db.updateTable('product').set({ web_stock: 1_000_000 }).where('id', 'in', productIds).execute();
    apiKey = await createApiKey(database.db, `soak-${Date.now()}`, Date.now());
  } finally {
    await database.close();
  }
  const backoffice = await startBackoffice();
  const env = {
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    TEST_GATEWAY: 'on',
    MAIL_DIR: join(dir, 'mail'),
    BACKOFFICE_ORDERS_URL: backoffice.url,
    BACKOFFICE_ORDERS_SECRET: 'soak-backoffice-secret-0123456789abcdef',
    // One address plays every shopper: the per-address limits would otherwise refuse most of them.
    AUTH_RATE_LIMIT_PER_IP: '100000000/1m',
    AUTH_RATE_LIMIT_PER_EMAIL: '100000000/1m',
    CHECKOUT_RATE_LIMIT_PER_IP: '100000000/1m',
    BASKET_RATE_LIMIT_PER_IP: '100000000/1m',
    BASKET_WRITE_RATE_LIMIT_PER_IP: '100000000/1m',
    // Every purchase's return (and callback) comes from the one load address.
    PAYMENT_CALLBACK_RATE_LIMIT_PER_IP: '100000000/1m',
    SEARCH_RATE_LIMIT_PER_IP: '100000000/1m',
    // /metrics for the JS heap beside what /proc shows: a leak grows the heap, caches of native code do not.
    METRICS_TOKEN,
  };
  const service = await startChild(
    { script: 'dist/main.js', args: ['serve'], env, readyPath: '/site/health', readyTimeoutMs: 180_000 },
    ROOT,
  );
  const base = service.baseUrl;
  try {
    const form = JSON.stringify(checkoutForm(await importCourier(base, apiKey, databaseUrl)));
    const started = performance.now();
    const latencies: Array<{ at: number; ms: number }> = [];
    const failures = new Map<string, number>();
    const counts = new Map<Action, number>();
    let registered = 0;
    const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!;
    const timed = async (action: Action, work: () => Promise<void>) => {
      const t0 = performance.now();
      try {
        await work();
        latencies.push({ at: t0 - started, ms: performance.now() - t0 });
        counts.set(action, (counts.get(action) ?? 0) + 1);
      } catch (error) {
        const key = `${action}: ${(error as Error).message.slice(0, 120)}`;
        failures.set(key, (failures.get(key) ?? 0) + 1);
      }
    };
    const get = async (path: string) => {
      const response = await fetch(`${base}${path}`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET ${path.split('?')[0]} ${response.status}`);
    };
    const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`POST ${path} ${response.status} ${text.slice(0, 80)}`);
      return text;
    };
    const addToBasket = async (token?: string) => {
      const answer = await post(
        '/basket/add-product',
        { productId: pick(productIds), quantity: 1 },
        token ? { 'basket-token': token } : {},
      );
      return (JSON.parse(answer) as { basketToken: string }).basketToken;
    };
    const run: Record<Action, () => Promise<void>> = {
      browse: () => get(`/product?per-page=20&page=${1 + Math.floor(Math.random() * 50)}`),
      product: () => get(`/product/${pick(productIds)}`),
      search: () => get(`/product/search?q=${encodeURIComponent(pick(WORDS))}&page=${1 + Math.floor(Math.random() * 3)}`),
      autocomplete: () => get(`/autocomplete?term=${encodeURIComponent(pick(WORDS).slice(0, 2 + Math.floor(Math.random() * 3)))}`),
      register: async () => {
        registered += 1;
        await post('/auth/register-simple', {
          email: `soak-${process.pid}-${registered}@example.ee`,
          firstName: 'Mari',
          lastName: 'Maasikas',
        });
      },
      basket: async () => void (await addToBasket()),
      checkout: async () => {
        let token = await addToBasket();
        token = await addToBasket(token);
        await purchase(base, token, form);
      },
    };
    const draw = (): Action => {
      let n = Math.random() * 100;
      for (const [action, weight] of MIX) if ((n -= weight) < 0) return action;
      return 'browse';
    };
    const samples: Array<ProcessSample> = [];
    const sample = async () => {
      const at = performance.now() - started;
      const state = processState(service.pid);
      samples.push({ at, ...state, heapMb: await heapUsedMb(base) });
    };
    await sample();
    const sampler = setInterval(() => void sample(), SAMPLE_MS);
    const deadline = started + totalMs;
    let lastLog = started;
    const client = async () => {
      while (performance.now() < deadline) {
        const action = draw();
        await timed(action, run[action]);
        if (performance.now() - lastLog > 30_000) {
          lastLog = performance.now();
          const last = samples.at(-1)!;
          log(
            `${((lastLog - started) / 60_000).toFixed(1)} min: ${latencies.length} requests, RSS ${last.rssMb.toFixed(0)} MB (anonymous ${last.anonMb.toFixed(0)}, JS heap used ${last.heapMb.toFixed(0)}), ${last.fds} fds (${last.fdKinds})`,
          );
        }
      }
    };
    log(
      `soak: ${minutes} min, ${clients} clients, warm-up ${(warmupMs / 1000).toFixed(0)} s, windows of ${(windowMs / 1000).toFixed(0)} s`,
    );
    await Promise.all(Array.from({ length: clients }, client));
    await sample();
    clearInterval(sampler);
    const report = judge(samples, latencies, { failures, counts, minutes, clients });
    const machine = `${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, Linux ${release()}; load average ${loadavg()[0]!.toFixed(2)} at the end`;
    writeResultsSection(join(ROOT, 'bench', 'RESULTS.md'), 'soak', soakSection(report, machine), []);
    log(
      `soak: ${report.passed ? 'pass' : 'FAIL'}; ${report.checks.map((c) => `${c.name} ${c.value} (${c.passed ? 'pass' : 'fail'})`).join('; ')}`,
    );
    return report.passed ? 0 : 1;
  } finally {
    await service.stop();
    await backoffice.close();
  }
}

/** The service's JS heap in use (MB), from its /metrics; NaN when that fails. */
async function heapUsedMb(base: string): Promise<number> {
  try {
    const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const match = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(await response.text());
    return match ? Number(match[1]) / 1024 / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Resident memory (MB: all, anonymous, file-backed) and open file descriptors of a process, from /proc. */
function processState(pid: number): Omit<ProcessSample, 'at' | 'heapMb'> {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  const fds = readdirSync(`/proc/${pid}/fd`);
  return { rssMb: mb('VmRSS'), anonMb: mb('RssAnon'), fileMb: mb('RssFile'), fds: fds.length, fdKinds: fdKinds(pid, fds) };
}

/** The descriptors by kind (socket, pipe, anon_inode, file), most first. */
function fdKinds(pid: number, fds: string[]): string {
  const counts = new Map<string, number>();
  for (const fd of fds) {
    let kind = 'gone';
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      kind = /^(socket|pipe|anon_inode):/.exec(target)?.[1] ?? 'file';
    } catch {
      // Closed between the listing and the look.
    }
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([kind, count]) => `${kind} ${count}`)
    .join(', ');
}

function judge(
  samples: Array<ProcessSample>,
  latencies: Array<{ at: number; ms: number }>,
  run: Pick<SoakReport, 'failures' | 'counts' | 'minutes' | 'clients'>,
): SoakReport {
  // Memory saw-tooths between major GCs (tens of MB on a 200 MB process), so single samples, or
  // the last few, compare a peak with a trough. Each value is the median of a span of samples:
  // the first span after the warm-up against the last span of the run (a third of the measured
  // time, at least 60 s). Descriptors: the highest count of the first span against the lowest of
  // the last, so only descriptors held for the whole last span count as a leak.
  const spanMs = Math.max(60_000, (totalMs - warmupMs) / 3);
  const warm = samples.filter((s) => s.at >= warmupMs && s.at <= warmupMs + spanMs);
  const end = samples.filter((s) => s.at >= totalMs - spanMs);
  const median = (values: number[]) => percentile(values, 50);
  const rssWarm = median(warm.map((s) => s.rssMb));
  const rssEnd = median(end.map((s) => s.rssMb));
  const anonWarm = median(warm.map((s) => s.anonMb));
  const anonEnd = median(end.map((s) => s.anonMb));
  const change = (from: number, to: number) => `${to.toFixed(0)} / ${from.toFixed(0)} MB (${(((to - from) / from) * 100).toFixed(1)} %)`;
  // The live JS heap: the lowest "heap used" of a span is a trough after a major collection.
  const lowestHeap = (span: ProcessSample[]) => Math.min(...span.map((s) => s.heapMb).filter(Number.isFinite));
  const heapWarm = lowestHeap(warm);
  const heapEnd = lowestHeap(end);
  // An empty span fails the check, as before (no sample: -Infinity / Infinity).
  const mostWarm = warm.reduce((most, s) => (s.fds > most.fds ? s : most), { fds: -Infinity, fdKinds: 'no sample' });
  const leastEnd = end.reduce((least, s) => (s.fds < least.fds ? s : least), { fds: Infinity, fdKinds: 'no sample' });
  const fdsWarm = mostWarm.fds;
  const fdsEnd = leastEnd.fds;
  const windows: Window[] = [];
  for (let from = warmupMs; from < totalMs - 1; from += windowMs) {
    const inWindow = latencies.filter((l) => l.at >= from && l.at < from + windowMs).map((l) => l.ms);
    if (inWindow.length > 0)
      windows.push({ fromS: from / 1000, requests: inWindow.length, p50: percentile(inWindow, 50), p99: percentile(inWindow, 99) });
  }
  // Three windows a side: a drift lasts, a hiccup of the machine falls in one window.
  const p99Of = (side: Window[]) => median(side.map((w) => w.p99));
  const firstP99 = p99Of(windows.slice(0, 3));
  const lastP99 = p99Of(windows.slice(-3));
  const checks = [
    {
      name: 'JS heap in use after collections (lowest sample), end / after warm-up',
      value: change(heapWarm, heapEnd),
      target: `at most +10 % (+${HEAP_SLACK_MB} MB)`,
      // No heap read in a span (Infinity) fails: a check that could not look must not pass.
      passed: Number.isFinite(heapWarm) && Number.isFinite(heapEnd) && heapEnd <= heapWarm * 1.1 + HEAP_SLACK_MB,
    },
    {
      name: 'resident memory (anonymous), end / after warm-up',
      value: change(anonWarm, anonEnd),
      target: judgesResidentMemory ? 'within ±10 %' : `information (run under ${RESIDENT_JUDGED_FROM_MIN} min)`,
      passed: !judgesResidentMemory || Math.abs(anonEnd - anonWarm) <= anonWarm * 0.1,
    },
    {
      name: 'resident memory (all, with the mapped database file), end / after warm-up',
      value: change(rssWarm, rssEnd),
      target: 'information',
      passed: true,
    },
    {
      name: 'open file descriptors, end / after warm-up',
      value: `${fdsEnd} / ${fdsWarm} (end: ${leastEnd.fdKinds}; after warm-up: ${mostWarm.fdKinds})`,
      target: `end ≤ warm-up + ${FD_SLACK}`,
      passed: fdsEnd <= fdsWarm + FD_SLACK,
    },
    {
      name: 'p99, last / first three windows (median)',
      value: `${lastP99.toFixed(1)} / ${firstP99.toFixed(1)} ms`,
      target: '≤ 1.5 × first + 10 ms',
      passed: lastP99 <= firstP99 * 1.5 + 10,
    },
    {
      name: 'failed requests',
      value: String([...run.failures.values()].reduce((a, b) => a + b, 0)),
      target: '0',
      passed: run.failures.size === 0,
    },
  ];
  return {
    ...run,
    warmupS: warmupMs / 1000,
    spanS: spanMs / 1000,
    samples,
    windows,
    checks,
    passed: checks.every((c) => c.passed),
    requests: latencies.length,
  };
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  async (error: unknown) => {
    await killAllChildren();
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);

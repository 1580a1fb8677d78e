// Issue 12, point 6: can a few anonymous connections stall the process through search? Another
// shopper's product pages are probed at a fixed rate, alone and while 4 connections hammer
// `GET /product-dynamic-filter/search-author?term=a b c d e f g h&limit=50&priceMax=<varied>` (a new
// priceMax each request, so no cache helps). Target: the shopper's p50 under attack within 2x of
// its quiet p50. The service is the demo bookstore (`serve --seed-demo`) with its default settings,
// where the issue measured 4 ms quiet against 112 ms attacked. With BENCH_STALL_BEFORE naming the
// main.js of another build (the code before the fix), that build is measured first, the same way.
import autocannon, { type Result } from 'autocannon';
import { join } from 'node:path';
import { startChild, type ChildSpec, type RunningChild } from './lib/child.js';
import { probe, type ProbeOptions, type ProbeResult } from './lib/probe.js';
import { percentile } from './lib/stats.js';

export const ATTACK_PATH = '/product-dynamic-filter/search-author?term=a%20b%20c%20d%20e%20f%20g%20h&limit=50';

// Issue 19, point 2: the same shopper while 4 connections send the costliest cold read of the demo
// bookstore, the dynamic filters of the whole store (every facet counted over 3,000 products, a new
// priceMax each time), with the caches off and the search limit per address out of the way, so that
// every attack request reads. Measured with the read pool off (SQLITE_READ_WORKERS=0: the reads run
// on the event loop) and on (the default, 2 worker threads).
export const COLD_ATTACK_PATH = '/product-dynamic-filter/filters?facetLimit=50';
const COLD_ENV = {
  CATALOGUE_CACHE_TTL_MS: '0',
  CATALOGUE_LIST_CACHE_TTL_MS: '0',
  STORE_CACHE_TTL_MS: '1000',
  SEARCH_RATE_LIMIT_PER_IP: '100000000/1m',
};

interface StallVariant {
  label: string;
  script: string;
  env: Record<string, string>;
  attackPath: string;
}

export interface StallOptions {
  attackConnections: number;
  probe: ProbeOptions;
  /** Products the shopper reads, one after another at random. */
  products: number;
  warmupSeconds: number;
  durationSeconds: number;
  sliceSeconds: number;
  /** The attack starts this long before the probe of a slice and ends this long after it. */
  leadSeconds: number;
  maxP50Ratio: number;
}

export const STALL_OPTIONS: Omit<StallOptions, 'warmupSeconds' | 'durationSeconds'> = {
  attackConnections: 4,
  probe: { ratePerSecond: 20, maxSockets: 10, timeoutMs: 10_000 },
  products: 200,
  sliceSeconds: 5,
  leadSeconds: 1,
  maxP50Ratio: 2,
};

export interface StallPhase {
  p50Ms: number;
  p99Ms: number;
  answers: number;
  non2xx: number;
  errors: number;
}

export interface StallRun {
  build: string;
  quiet: StallPhase;
  attacked: StallPhase;
  attack: { requestsPerSecond: number; statuses: Record<string, number>; errors: number };
  /** p50 attacked / p50 quiet. */
  ratio: number;
}

export interface StallSection {
  runs: StallRun[];
  options: StallOptions;
}

export async function benchStall(
  tmp: string,
  root: string,
  serviceSpec: (dbFile: string, env?: Record<string, string>) => ChildSpec,
  options: StallOptions,
  log: (line: string) => void,
): Promise<StallSection> {
  const variants: StallVariant[] = [];
  const before = process.env.BENCH_STALL_BEFORE;
  // BENCH_STALL_COLD_ONLY=1: only the cold rows (issue 19), which a loaded machine may need to measure apart.
  const coldOnly = process.env.BENCH_STALL_COLD_ONLY === '1';
  if (before && !coldOnly) variants.push({ label: `before the fix (\`${before}\`)`, script: before, env: {}, attackPath: ATTACK_PATH });
  if (!coldOnly) variants.push({ label: 'this build (`dist/main.js`)', script: 'dist/main.js', env: {}, attackPath: ATTACK_PATH });
  for (const workers of ['0', '2'])
    variants.push({
      label: `this build, caches off, cold dynamic filters, \`SQLITE_READ_WORKERS=${workers}\``,
      script: 'dist/main.js',
      env: { ...COLD_ENV, SQLITE_READ_WORKERS: workers },
      attackPath: COLD_ATTACK_PATH,
    });
  const runs: StallRun[] = [];
  for (const [index, { label, script, env, attackPath }] of variants.entries()) {
    const spec = serviceSpec(join(tmp, `stall-${index}.db`), env);
    const server = await startChild({ ...spec, script }, root);
    try {
      log(`stall: ${label}: shopper probe at ${options.probe.ratePerSecond} req/s, ${options.attackConnections} attack connections`);
      const run = await measure(server, label, attackPath, options);
      log(
        `  quiet p50 ${run.quiet.p50Ms.toFixed(2)} ms, attacked p50 ${run.attacked.p50Ms.toFixed(2)} ms (${run.ratio.toFixed(2)}x); attack ${JSON.stringify(run.attack.statuses)}`,
      );
      runs.push(run);
    } finally {
      await server.stop();
    }
  }
  return { runs, options };
}

export function stallPasses(run: StallRun, options: StallOptions): boolean {
  return run.ratio <= options.maxP50Ratio && run.quiet.non2xx + run.quiet.errors + run.attacked.non2xx + run.attacked.errors === 0;
}

async function measure(server: RunningChild, build: string, attackPath: string, options: StallOptions): Promise<StallRun> {
  const ids: number[] = [];
  for (let page = 1; ids.length < options.products; page += 1) {
    const cards = (await (await fetch(`${server.baseUrl}/product?per-page=100&page=${page}`)).json()) as Array<{ id: number }>;
    if (cards.length === 0) break;
    ids.push(...cards.map((card) => card.id));
  }
  const shopper = () => `${server.baseUrl}/product/${ids[Math.floor(Math.random() * Math.min(ids.length, options.products))]}`;
  const browse = (seconds: number) => probe(shopper, seconds, options.probe);
  const attack = (seconds: number) =>
    autocannon({
      url: server.baseUrl,
      connections: options.attackConnections,
      duration: seconds,
      timeout: 10,
      requests: [{ setupRequest: (request) => ({ ...request, path: `${attackPath}&priceMax=${(Math.random() * 100).toFixed(2)}` }) }],
    });

  await browse(options.warmupSeconds);
  const quiet: ProbeResult[] = [];
  const attacked: ProbeResult[] = [];
  const attacks: Result[] = [];
  for (let left = options.durationSeconds; left > 0; left -= options.sliceSeconds) {
    const seconds = Math.min(left, options.sliceSeconds);
    quiet.push(await browse(seconds));
    const load = attack(seconds + 2 * options.leadSeconds);
    await pause(options.leadSeconds);
    attacked.push(await browse(seconds));
    attacks.push(await load);
  }
  const statuses: Record<string, number> = {};
  for (const result of attacks)
    for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = (statuses[code] ?? 0) + count;
  const requests = attacks.reduce((sum, r) => sum + r.requests.total, 0);
  const seconds = attacks.reduce((sum, r) => sum + r.duration, 0);
  const quietPhase = phase(quiet);
  const attackedPhase = phase(attacked);
  return {
    build,
    quiet: quietPhase,
    attacked: attackedPhase,
    attack: { requestsPerSecond: requests / seconds, statuses, errors: attacks.reduce((sum, r) => sum + r.errors + r.timeouts, 0) },
    ratio: attackedPhase.p50Ms / quietPhase.p50Ms,
  };
}

function phase(results: ProbeResult[]): StallPhase {
  const latencies = results.flatMap((r) => r.latenciesMs);
  return {
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    answers: latencies.length,
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

export function renderStallSection(section: StallSection, meta: { date: Date; command: string; machine: string; pinned: boolean }): string {
  const o = section.options;
  const ms = (value: number) => value.toFixed(2);
  const rows = section.runs.map(
    (run) =>
      `| ${run.build} | ${ms(run.quiet.p50Ms)} | ${ms(run.attacked.p50Ms)} | ${run.ratio.toFixed(2)}× | ${ms(run.quiet.p99Ms)} | ${ms(run.attacked.p99Ms)} | ` +
      `${Math.round(run.attack.requestsPerSecond).toLocaleString('en-US')} | ${Object.entries(run.attack.statuses)
        .map(([code, count]) => `${code}: ${count.toLocaleString('en-US')}`)
        .join(
          ', ',
        )} | ${run.quiet.answers + run.attacked.answers} | ${run.quiet.non2xx + run.attacked.non2xx} | ${run.quiet.errors + run.attacked.errors} | ` +
      `≤ ${o.maxP50Ratio}× | ${stallPasses(run, o) ? 'pass' : 'FAIL'} |`,
  );
  return `## Search stall: another shopper's product page while 4 connections hammer a degenerate search, and a cold read

- Date: ${meta.date.toISOString()}
- Machine: ${meta.machine}
- Command: \`${meta.command}\`

| Build | shopper p50 quiet (ms) | p50 attacked (ms) | ratio | p99 quiet (ms) | p99 attacked (ms) | attack req/s | attack answers | shopper answers | non-2xx | errors | target | result |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |
${rows.join('\n')}

### Method

- The service is \`serve --seed-demo\` (the demo bookstore, 3,000 products) with its default settings and \`LOG_LEVEL=warn\`, on a
  fresh SQLite file, ${meta.pinned ? 'pinned to CPU 1 (the load generator and the probe have CPU 0)' : 'not pinned (taskset unavailable)'}.
- The shopper: \`GET /product/:id\` of ${o.products} guest-visible products at random, open loop at ${o.probe.ratePerSecond} req/s
  (exact latencies, bench/lib/probe.ts). The attack: ${o.attackConnections} autocannon connections, each sending
  \`${ATTACK_PATH}&priceMax=<random>\` as soon as it has an answer, from the same address. ${o.warmupSeconds} s of quiet
  probing first (discarded), then ${o.durationSeconds} s of each phase in ${o.sliceSeconds} s slices that take turns (quiet,
  then attacked, the attack starting ${o.leadSeconds} s before the probe and ending ${o.leadSeconds} s after it).
- The before row is the code of the commit before the fix (4576528), compiled the same way:
  \`git archive 4576528 src tsconfig.json tsconfig.build.json package.json | tar -x -C bench/.tmp/before\`, node_modules linked,
  \`npx tsc -p tsconfig.build.json\` there, then \`BENCH_STALL_BEFORE=bench/.tmp/before/dist/main.js npm run bench -- --only stall\`.
- A load average above the CPU count means other work shared the machine (and CPU 1): absolute latencies are then inflated,
  the before row's most (its attack requests each took that much longer, and the shopper waited behind four of them).
- The cold rows (issue 19): the same build with \`CATALOGUE_CACHE_TTL_MS=0\`, \`CATALOGUE_LIST_CACHE_TTL_MS=0\` and
  \`SEARCH_RATE_LIMIT_PER_IP=100000000/1m\` (every attack request reads), attacked with \`${COLD_ATTACK_PATH}&priceMax=<random>\`
  (the whole store's dynamic filters, the costliest cold read of the demo bookstore), once with the read pool off
  (\`SQLITE_READ_WORKERS=0\`: the reads run on the event loop) and once with it on (the default, 2 worker threads at a lower OS
  priority, so that pinned to one CPU the event loop still gets most of it).
- What the fix changed for this request: the one-letter word list is a 400 before anything is read (\`SEARCH_RATE_LIMIT_PER_IP\`
  answers 429, after a 250 ms pause, past 3,000 ms of search work per 10 s from one address, a refused request counting 20); a facet name search reads its name matches once (it ran the
  full-text match again for every found product: 110 ms, now 0.3 ms); and no search read may take more than \`SEARCH_TIME_BUDGET_MS\`.`;
}

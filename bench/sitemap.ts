// The sitemap of a large catalogue: how long `sitemap generate` takes and how much memory it holds.
//
//   npx tsx bench/sitemap.ts [--products 200000] [--from <a catalogue .db of that size>]
//
// It works on bench/.tmp/sitemap-<products>.db: a copy of --from (e.g. bench/.tmp/basket-200000.db
// of the basket bench, whose products are the demo generator's) or, without it, a catalogue built
// by bench/catalogue-dataset.ts. The run itself is a child process (the CLI's own command
// function), which reports its resident memory after start-up and its peak: a streamed run keeps
// the peak near the start, whatever the number of products.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: { products: { type: 'string', default: '200000' }, from: { type: 'string' }, child: { type: 'boolean' } },
});
const products = Number(values.products);
const file = join(ROOT, 'bench', '.tmp', `sitemap-${products}.db`);
const filesDir = join(ROOT, 'bench', '.tmp', `sitemap-${products}-files`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** The child: loads the command, notes its memory, generates every store's sitemap, reports. */
async function child(): Promise<void> {
  const [{ createDatabase }, { migrateToLatest }, { localFileStore }, { sitemapCommand }] = await Promise.all([
    import('../src/db/database.js'),
    import('../src/db/migrate.js'),
    import('../src/infra/file-store/index.js'),
    import('../src/modules/sitemap/index.js'),
  ]);
  const database = createDatabase(`sqlite:${file}`);
  await migrateToLatest(database);
  let peak = process.memoryUsage.rss();
  const atStart = peak;
  const heapAtStart = process.memoryUsage().heapUsed;
  let heapPeak = heapAtStart;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peak = Math.max(peak, usage.rss);
    heapPeak = Math.max(heapPeak, usage.heapUsed);
  }, 20);
  const lines: string[] = [];
  const started = performance.now();
  const code = await sitemapCommand(
    { db: database.db, fileStore: localFileStore(filesDir), serviceUrl: 'https://api.example' },
    ['generate'],
    (line) => lines.push(line),
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  await database.close();
  const maxRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(`${JSON.stringify({ code, seconds, atStart, peakSampled: peak, maxRss, heapAtStart, heapPeak, lines })}\n`);
}

async function main(): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  if (values.from) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    copyFileSync(values.from, file);
  } else if (!existsSync(file)) {
    const { buildCatalogueDataset } = await import('./catalogue-dataset.js');
    await buildCatalogueDataset({
      products,
      databaseUrl: `sqlite:${file}`,
      indexSearch: false,
      log: (line) => process.stderr.write(`${line}\n`),
    });
  }
  rmSync(filesDir, { recursive: true, force: true });
  const load = loadavg()[0]!.toFixed(2);
  const run = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--products', String(products), '--child'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  run.stdout.on('data', (chunk) => (output += chunk));
  await new Promise((resolve) => run.on('close', resolve));
  const result = JSON.parse(output.trim().split('\n').pop()!) as {
    code: number;
    seconds: number;
    atStart: number;
    peakSampled: number;
    maxRss: number;
    heapAtStart: number;
    heapPeak: number;
    lines: string[];
  };
  const report = [
    `## Sitemap: \`sitemap generate\` of a ${products.toLocaleString('en')}-product catalogue (SQLite)`,
    '',
    `- Date: ${new Date().toISOString()}; load average ${load} at the start`,
    `- Command: \`npx tsx bench/sitemap.ts --products ${products}${values.from ? ' --from <catalogue db>' : ''}\``,
    `- Time: ${result.seconds.toFixed(1)} s for every store and section (exit code ${result.code})`,
    `- Resident memory: ${mb(result.atStart)} after start-up, peak ${mb(result.maxRss)} (sampled every 20 ms: ${mb(result.peakSampled)}); ` +
      "the growth is SQLite's page cache (64 MB) and memory-mapped file pages (mmap_size 1 GB), bounded by those settings",
    `- JavaScript heap used: ${mb(result.heapAtStart)} after start-up, peak ${mb(result.heapPeak)} (sampled every 20 ms)`,
    '',
    '```',
    ...result.lines,
    '```',
  ];
  process.stdout.write(`${report.join('\n')}\n`);
}

await (values.child ? child() : main());

// `GET /virtual-gift-card/balance?code=` beside the raw node:http ceiling in the same run. Target
// (issue 17): 20 % or more of the ceiling's requests/s, on SQLite, with the compiled build (dist/)
// pinned to one core (CPU 1; the load generator on CPU 0).
//
//   npm run build && npx tsx bench/gift-card-balance.ts [--cards 10000] [--seconds 10] [--write]
//
// Each request checks one of `cards` valid codes from a random client address (the service runs
// with TRUST_PROXY=1 behind "a proxy" that sets X-Forwarded-For, as in production), so every
// request does the whole work of a right code: the HMAC look-up and a read of the per-address
// count of wrong codes (a right code writes nothing; only wrong codes are counted). Prints its markdown; `--write` also writes its
// section of bench/RESULTS.md (`<!-- bench:gift-cards -->`), for the lead's runs on a quiet machine.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { cpus, loadavg, release, type } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon, { type Result } from 'autocannon';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createCard } from '../src/modules/gift-cards/gift-card-ledger.js';
import { codeHint, codeKey, displayCode, generateCode } from '../src/modules/gift-cards/gift-card-code.js';
import { killAllChildren, pinLoadGenerator, startChild, type RunningChild } from './lib/child.js';
import { writeResultsSection } from './lib/results-file.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));

const { values } = parseArgs({
  options: {
    cards: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    // For a quick check without a build: the service from src/ through tsx (slower; not a result).
    script: { type: 'string', default: 'dist/main.js' },
    write: { type: 'boolean', default: false },
  },
});
const cardCount = Number(values.cards);
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A migrated database with `cardCount` physical cards of 50.00; answers their codes as printed. */
async function seedCards(databaseUrl: string): Promise<string[]> {
  const database = createDatabase(databaseUrl);
  try {
    await migrateToLatest(database);
    const db = database.db;
    const now = Date.now();
    const key = await codeKey(db, now);
    const codes: string[] = [];
    for (let start = 0; start < cardCount; start += 500) {
      await db.transaction().execute(async (trx) => {
        for (let i = start; i < Math.min(cardCount, start + 500); i += 1) {
          const code = generateCode();
          await createCard(
            trx,
            {
              code_hmac: key.hmac(code),
              code_hint: codeHint(code),
              kind: 'PHYSICAL',
              initial_cents: 5000,
              expires_at: now + 365 * 86_400_000,
              order_id: null,
              order_position: null,
              buyer_client_account_id: null,
              recipient_name: null,
              recipient_email: null,
              message: null,
              store_code: null,
              language: null,
              deliver_at: null,
              mailed_at: null,
            },
            'IMPORT',
            now,
          );
          codes.push(displayCode(code));
        }
      });
    }
    return codes;
  } finally {
    await database.close();
  }
}

const randomAddress = () =>
  `10.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

const run = (child: RunningChild, duration: number, path: () => string, headers: () => Record<string, string>) =>
  autocannon({
    url: child.baseUrl,
    duration,
    connections: Number(values.connections),
    pipelining: 1,
    timeout: 10,
    requests: [{ setupRequest: (r) => ({ ...r, method: 'GET', path: path(), headers: { ...r.headers, ...headers() } }) }],
  });

async function main(): Promise<void> {
  const pinned = pinLoadGenerator();
  const tmp = join(ROOT, 'bench', '.tmp');
  mkdirSync(tmp, { recursive: true });
  const uptime = execFileSync('uptime', { encoding: 'utf8' }).trim();
  const startLoad = loadavg()[0]!.toFixed(2);
  const file = join(tmp, `gift-cards-${cardCount}.db`);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const databaseUrl = `sqlite:${file}`;
  log(`creating ${cardCount} gift cards`);
  const codes = await seedCards(databaseUrl);
  const ceiling = await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, ROOT);
  const service = await startChild(
    {
      script: values.script,
      args: ['serve'],
      env: { DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn', BASE_PATH: '', TRUST_PROXY: '1' },
      readyPath: '/site/health',
    },
    ROOT,
  );
  const pick = () => `/virtual-gift-card/balance?code=${encodeURIComponent(codes[Math.floor(Math.random() * codes.length)]!)}`;
  const headers = () => ({ store: 'WEB', 'x-forwarded-for': randomAddress() });
  let results: { ceiling: Result; balance: Result };
  try {
    const probe = await fetch(`${service.baseUrl}${pick()}`, { headers: headers() });
    const body = (await probe.json()) as { valid?: boolean };
    if (probe.status !== 200 || body.valid !== true) throw new Error(`probe: ${probe.status}, ${JSON.stringify(body)}`);
    await run(
      ceiling,
      Number(values.warmup),
      () => '/',
      () => ({}),
    );
    await run(service, Number(values.warmup), pick, headers);
    // Alternating halves, so that the machine's load falls on both alike.
    const half = Number(values.seconds) / 2;
    const c1 = await run(
      ceiling,
      half,
      () => '/',
      () => ({}),
    );
    const b1 = await run(service, half, pick, headers);
    const c2 = await run(
      ceiling,
      half,
      () => '/',
      () => ({}),
    );
    const b2 = await run(service, half, pick, headers);
    const merge = (a: Result, b: Result): Result =>
      ({
        ...a,
        duration: a.duration + b.duration,
        requests: { ...a.requests, total: a.requests.total + b.requests.total },
        latency: { ...a.latency, p99: Math.max(a.latency.p99, b.latency.p99) },
        non2xx: a.non2xx + b.non2xx,
        errors: a.errors + b.errors + a.timeouts + b.timeouts,
      }) as Result;
    results = { ceiling: merge(c1, c2), balance: merge(b1, b2) };
  } finally {
    await service.stop();
    await ceiling.stop();
    killAllChildren();
  }
  const rps = (r: Result) => r.requests.total / r.duration;
  const ratio = rps(results.balance) / rps(results.ceiling);
  const pass = ratio >= 0.2 && results.balance.non2xx === 0 && results.balance.errors === 0;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const markdown = [
    '## Gift cards: `GET /virtual-gift-card/balance`',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? '?'}), Node ${process.version}, ${type()} ${release()}; load average ${startLoad} at the start${pinned ? '; load generator pinned to CPU 0, service and ceiling to CPU 1' : ''}`,
    `- \`uptime\` at the start: \`${uptime}\``,
    `- Command: \`npm run build && npx tsx bench/gift-card-balance.ts --cards ${cardCount} --seconds ${values.seconds}\`${values.script === 'dist/main.js' ? '' : ` (service: ${values.script}, not a result)`}`,
    '',
    `${cardCount.toLocaleString('en-US')} physical cards, SQLite. Every request is a random right code from a random client address`,
    '(X-Forwarded-For behind TRUST_PROXY=1): the HMAC look-up and a read of the per-address count of wrong codes (no write).',
    `${values.connections} connections, ${values.warmup} s warm-up each, then ${values.seconds} s each in two alternating halves.`,
    '',
    '| Scenario | req/s | p99 (ms) | requests | non-2xx | errors | ratio to ceiling | target | result |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    `| ceiling: raw \`node:http\`, small JSON | ${fmt(rps(results.ceiling))} | ${results.ceiling.latency.p99} | ${fmt(results.ceiling.requests.total)} | ${results.ceiling.non2xx} | ${results.ceiling.errors} | 100 % | — | reference |`,
    `| \`GET /virtual-gift-card/balance\` | ${fmt(rps(results.balance))} | ${results.balance.latency.p99} | ${fmt(results.balance.requests.total)} | ${results.balance.non2xx} | ${results.balance.errors} | ${(ratio * 100).toFixed(1)} % | ≥ 20 % | ${pass ? 'pass' : 'FAIL'} |`,
    '',
  ].join('\n');
  if (values.write)
    writeResultsSection(join(ROOT, 'bench', 'RESULTS.md'), 'gift-cards', markdown, [
      'core',
      'catalogue',
      'search',
      'export',
      'basket',
      'wishlist',
      'gift-cards',
    ]);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error: unknown) => {
  killAllChildren();
  console.error(error);
  process.exit(1);
});

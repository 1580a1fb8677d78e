// A 200 MB download through GET /direct-download/{token}: `npx tsx bench/download.ts [megabytes]`
// (`npm run build` first: the service runs from dist/ as in production). Shows that a download is
// streamed, not held: the service process's peak RSS (VmHWM of /proc/<pid>/status) before and after
// the downloads, its RSS sampled every 20 ms while they run, and the throughput on the loopback.
// Rounds: three whole downloads at full speed, one client that reads nothing for 2 s and then reads
// (the server must wait on the socket, not read ahead into memory), and one range from the middle.
// Writes its section of bench/RESULTS.md (part `download`).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createReadStream } from 'node:fs';
import { createServer, get } from 'node:http';
import { loadavg } from 'node:os';
import { cpus, release, tmpdir, type } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { localFileStore } from '../src/infra/file-store/index.js';
import { saveProductFile } from '../src/modules/downloads/downloads.repository.js';
import { processOrder } from '../src/modules/orders/processing/process-order.js';
import { createProduct } from '../test/helpers/catalogue.js';
import { createCustomer } from '../test/helpers/customers.js';
import { insertOrder } from '../test/helpers/order-fixtures.js';
import { killAllChildren, startChild } from './lib/child.js';
import { writeResultsSection } from './lib/results-file.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const MEGABYTES = Number(process.argv[2] ?? 200);
const SIZE = MEGABYTES * 1024 * 1024;
const MiB = 1024 * 1024;

/** SIZE bytes in 1 MiB chunks of random data (one chunk repeated: writing is not what is measured). */
function fileContent(): Readable {
  const chunk = randomBytes(MiB);
  let left = SIZE;
  return new Readable({
    read() {
      const piece = Math.min(left, chunk.length);
      left -= piece;
      this.push(piece === 0 ? null : chunk.subarray(0, piece));
    },
  });
}

function memoryOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

interface Round {
  name: string;
  bytes: number;
  seconds: number;
  maxRss: number;
  status: number;
}

/** GETs the URL, discarding the body; `pauseMs` holds the first read back that long. */
function download(url: string, pid: number, name: string, headers: Record<string, string> = {}, pauseMs = 0): Promise<Round> {
  return new Promise((resolve, reject) => {
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, memoryOf(pid).rss)), 20);
    const started = performance.now();
    get(url, { headers }, (response) => {
      let bytes = 0;
      if (pauseMs > 0) {
        response.pause();
        setTimeout(() => response.resume(), pauseMs);
      }
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => {
        clearInterval(sampler);
        resolve({ name, bytes, seconds: (performance.now() - started) / 1000, maxRss, status: response.statusCode ?? 0 });
      });
      response.on('error', reject);
    }).on('error', reject);
  });
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'bench-download-'));
  const dbFile = join(tmp, 'bench.sqlite');
  const fileDir = join(tmp, 'files');
  const secret = randomBytes(32).toString('hex');
  try {
    // The data: an e-book, a client who bought it (order processed as the worker does), its file.
    const config = loadConfig({ DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'silent' });
    const database = createDatabase(config.databaseUrl);
    await migrateToLatest(database);
    const db = database.db;
    const productId = await createProduct(db, { code: 'BENCH-EBOOK', type: 'EBOOK', binding: 'EPUB', deliveryTime: 'INSTANT_DOWNLOAD' });
    const customer = await createCustomer(db);
    const order = await insertOrder(db, {
      status: 'PENDING_PROCESSING',
      clientAccountId: customer.clientAccountId,
      customerKind: 'SIMPLE',
      lines: [{ productId, productCode: 'BENCH-EBOOK', digital: true }],
      queueJob: false,
    });
    await processOrder(db, order.id, Date.now());
    const stored = await localFileStore(fileDir).put('products/bench/book.epub', fileContent());
    const file = {
      productId,
      format: 'EPUB',
      storageKey: 'products/bench/book.epub',
      contentType: 'application/epub+zip',
      size: stored.size,
      filename: 'book.epub',
    };
    const { id: fileId } = await saveProductFile(db, file, Date.now());
    await database.close();

    const service = await startChild(
      {
        script: 'dist/main.js',
        args: ['serve'],
        env: {
          DATABASE_URL: `sqlite:${dbFile}`,
          FILE_STORE_DIR: fileDir,
          DOWNLOAD_LINK_SECRET: secret,
          DOWNLOAD_LIMIT: '100',
          LOG_LEVEL: 'warn',
          WORKER: 'off',
        },
        readyPath: '/site/health',
      },
      ROOT,
    );
    const pid = service.pid;
    try {
      const link = async () => {
        const response = await fetch(`${service.baseUrl}/download/${order.id}-${fileId}/link`, {
          headers: { authorization: `Bearer ${customer.token}` },
        });
        if (!response.ok) throw new Error(`link: ${response.status} ${await response.text()}`);
        return new URL(((await response.json()) as { url: string }).url).pathname;
      };
      // Warm: the route, the signer and the statement cache, on a small range.
      await download(`${service.baseUrl}${await link()}`, pid, 'warm-up', { range: 'bytes=0-1023' });
      const before = memoryOf(pid);
      const rounds: Round[] = [];
      for (let index = 1; index <= 3; index += 1)
        rounds.push(await download(`${service.baseUrl}${await link()}`, pid, `whole file, run ${index}`));
      rounds.push(await download(`${service.baseUrl}${await link()}`, pid, 'whole file, client reads after 2 s', {}, 2000));
      rounds.push(
        await download(`${service.baseUrl}${await link()}`, pid, 'range from the middle (bytes=N/2-)', { range: `bytes=${SIZE / 2}-` }),
      );
      const after = memoryOf(pid);
      rounds.push(await rawCeiling(join(fileDir, 'products/bench/book.epub')));
      for (const round of rounds) {
        if (round.name.startsWith('ceiling')) continue;
        const expected = round.name.startsWith('range') ? SIZE / 2 : SIZE;
        if (round.bytes !== expected || (round.status !== 200 && round.status !== 206))
          throw new Error(`${round.name}: ${round.status}, ${round.bytes} bytes`);
      }
      report(rounds, before, after);
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The same file from a bare node:http server in this process (no framework, no database), streamed the
 * same way: what the loopback and the disk give on this machine at this moment.
 */
async function rawCeiling(path: string): Promise<Round> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-length': SIZE });
    createReadStream(path, { highWaterMark: 256 * 1024 }).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  try {
    return { ...(await download(`http://127.0.0.1:${port}/`, process.pid, 'ceiling: bare node:http, same file')), maxRss: NaN };
  } finally {
    server.close();
  }
}

function report(rounds: Round[], before: { rss: number; hwm: number }, after: { rss: number; hwm: number }): void {
  const mb = (bytes: number) => (bytes / MiB).toFixed(0);
  const lines = [
    `## Download: ${MEGABYTES} MB through \`GET /direct-download/{token}\` (\`npx tsx bench/download.ts\`)`,
    '',
    `${new Date().toISOString().slice(0, 10)}, ${type()} ${release()}, ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}; ` +
      'the service from `dist/` on SQLite and the local file store, the client on the same machine (loopback); ' +
      `load average ${loadavg()[0]!.toFixed(1)} at the end (the machine is shared).`,
    '',
    '| round | bytes | seconds | MB/s | service RSS peak while it ran |',
    '| --- | ---: | ---: | ---: | ---: |',
    ...rounds.map(
      (round) =>
        `| ${round.name} | ${round.bytes} | ${round.seconds.toFixed(2)} | ${(round.bytes / MiB / round.seconds).toFixed(0)} | ${Number.isNaN(round.maxRss) ? '–' : `${mb(round.maxRss)} MB`} |`,
    ),
    '',
    `Service process peak RSS (VmHWM): **${mb(before.hwm)} MB before the downloads, ${mb(after.hwm)} MB after** ` +
      `(${mb(after.hwm - before.hwm)} MB more for the ${rounds.length - 1} downloads above); RSS at the end ${mb(after.rss)} MB.`,
    '',
    'The file is read in 256 KiB chunks and written to the socket under back-pressure (`reply.send(stream)`), so the',
    "memory a download holds does not grow with the file's size nor with a slow client.",
  ];
  const markdown = lines.join('\n');
  console.log(markdown);
  writeResultsSection(join(ROOT, 'bench', 'RESULTS.md'), 'download', markdown, []);
}

main().catch((error: unknown) => {
  console.error(error);
  killAllChildren();
  process.exitCode = 1;
});

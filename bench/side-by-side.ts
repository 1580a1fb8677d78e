// Builds of the service side by side on one request (a before/after of a change), each compared by
// the server's CPU time per request, which moves far less than req/s on a shared host. Every build
// serves a copy of the same demo database; the raw node:http ceiling runs beside them. The measured
// time is cut into short slices that take turns (A B ceiling A B ceiling ...), so a slow phase of
// the machine costs every build alike.
//
//   npm run build && npx tsx bench/side-by-side.ts [--path /site/health] [--seconds 24] [--slice 3] [--connections 50]
//     [--env KEY=VALUE ...] <name>=<a build's dist/main.js> [<name>=<another build's dist/main.js> ...]
//
// e.g. a checkout of the last commit built in /tmp/before: `before=/tmp/before/dist/main.js now=dist/main.js`.
// The load generator is pinned to CPU 0 and the servers to CPU 1 where taskset allows.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { pinLoadGenerator, startChild, type RunningChild } from './lib/child.js';
import { measureInterleaved, type LoadResult } from './lib/http-load.js';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
// As the bench serves: no request log lines (LOG_LEVEL=warn), the default store.
const SERVICE_ENV = { LOG_LEVEL: 'warn', BASE_PATH: '' };

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      path: { type: 'string', default: '/site/health' },
      seconds: { type: 'string', default: '24' },
      slice: { type: 'string', default: '3' },
      connections: { type: 'string', default: '50' },
      env: { type: 'string', multiple: true, default: [] },
    },
    allowPositionals: true,
    strict: true,
  });
  const builds = positionals.map((given) => {
    const at = given.indexOf('=');
    if (at < 1) throw new Error(`expected <name>=<dist/main.js>, got ${given}`);
    return { name: given.slice(0, at), script: given.slice(at + 1) };
  });
  if (builds.length === 0) throw new Error('name at least one build: <name>=<dist/main.js>');
  const env = Object.fromEntries(values.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  const tmp = mkdtempSync(join(tmpdir(), 'bench-side-by-side-'));
  const pinned = pinLoadGenerator();
  const children: RunningChild[] = [];
  try {
    // The first build makes the demo database; the others serve copies of it, made before they start.
    const demo = join(tmp, 'demo.db');
    const servers: Array<{ name: string; child: RunningChild }> = [];
    for (const [index, build] of builds.entries()) {
      const file = index === 0 ? demo : join(tmp, `${build.name}.db`);
      if (index > 0) copyFileSync(demo, file);
      const child = await startChild(
        {
          script: build.script,
          args: index === 0 ? ['serve', '--seed-demo'] : ['serve'],
          env: { DATABASE_URL: `sqlite:${file}`, ...SERVICE_ENV, ...env },
          readyPath: '/site/health',
        },
        ROOT,
      );
      children.push(child);
      servers.push({ name: build.name, child });
    }
    const ceiling = await startChild({ script: 'bench/ceiling-server.mjs', readyPath: '/' }, ROOT);
    children.push(ceiling);
    const seconds = Number(values.seconds);
    const results = await measureInterleaved(
      [
        ...servers.map(({ name, child }) => ({ name, url: `${child.baseUrl}${values.path}`, serverCpuSeconds: child.cpuSeconds })),
        { name: 'ceiling', url: ceiling.baseUrl, serverCpuSeconds: ceiling.cpuSeconds },
      ],
      {
        connections: Number(values.connections),
        pipelining: 1,
        warmupSeconds: 3,
        durationSeconds: seconds,
        sliceSeconds: Number(values.slice),
      },
    );
    process.stdout.write(
      `GET ${values.path}, ${values.connections} connections, ${seconds} s each in ${values.slice} s slices, pinned: ${pinned}\n`,
    );
    process.stdout.write(
      '| Server | req/s | slice req/s (min-max) | CPU µs/req | p99 ms | non-2xx | errors |\n|---|---|---|---|---|---|---|\n',
    );
    for (const name of [...servers.map((server) => server.name), 'ceiling']) {
      const r = results.get(name) as LoadResult;
      const cpu = r.serverCpuMicros === undefined ? '' : r.serverCpuMicros.toFixed(1);
      process.stdout.write(
        `| ${name} | ${Math.round(r.requestsPerSecond).toLocaleString('en-US')} | ${r.sliceRange.map((n) => Math.round(n).toLocaleString('en-US')).join('-')} | ${cpu} | ${r.p99Ms} | ${r.non2xx} | ${r.errors} |\n`,
      );
    }
  } finally {
    for (const child of children) await child.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});

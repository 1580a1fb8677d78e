import type { MicroOptions, MicroRow } from '../db-read.js';
import type { LoginSection } from '../login.js';
import type { LoadOptions, LoadResult } from './http-load.js';
import { renderLoginSection } from './report-login.js';

export interface HttpRow {
  name: string;
  result: LoadResult;
  /** Share of the ceiling's requests/s to reach; undefined for the ceiling itself. */
  target?: number;
  /** The same requests to a second service with the per-process caches off (issue 19); shown as extra columns. */
  cachesOff?: LoadResult;
}

export interface Report {
  date: Date;
  command: string;
  machine: { cpus: number; cpuModel: string; node: string; os: string; loadAverage: number; pinned: boolean };
  load: LoadOptions;
  ceiling: HttpRow;
  http: HttpRow[];
  micro: MicroOptions;
  microRows: MicroRow[];
  login: LoginSection;
}

export const fmt = (value: number, digits = 0, minDigits = digits) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: minDigits });
const pct = (ratio: number) => `${fmt(ratio * 100, 1)} %`;

/** A measured row passes when it reaches its target; an HTTP row also needs only 2xx answers. */
export function httpPasses(row: HttpRow, ceiling: LoadResult): boolean {
  const clean = row.result.non2xx === 0 && row.result.errors === 0;
  return clean && (row.target === undefined || row.result.requestsPerSecond / ceiling.requestsPerSecond >= row.target);
}

export function microPasses(row: MicroRow): boolean {
  return row.target === undefined || row.ratio >= row.target;
}

/**
 * The HTTP table: the ceiling's row, then each scenario with its ratio to the ceiling and verdict;
 * when a row was also measured with the caches off, four columns more for that run (information:
 * the verdict is the default settings').
 */
export function httpTable(ceilingRow: HttpRow, rows: HttpRow[]): string {
  const ceiling = ceilingRow.result;
  const withCold = rows.some((row) => row.cachesOff !== undefined);
  // No request completed (an overloaded machine): no CPU per request to show.
  const cpuOf = (r: LoadResult) =>
    r.serverCpuMicros === undefined || !Number.isFinite(r.serverCpuMicros) ? '—' : fmt(r.serverCpuMicros, 1);
  const cold = (r: LoadResult | undefined) =>
    !withCold
      ? ''
      : r === undefined
        ? ' — | — | — | — |'
        : ` ${fmt(r.requestsPerSecond)}${r.non2xx + r.errors > 0 ? ` (${r.non2xx + r.errors} failed)` : ''} | ${fmt(r.p99Ms, 2, 0)} | ${cpuOf(r)} | ${pct(r.requestsPerSecond / ceiling.requestsPerSecond)} |`;
  const lines = [ceilingRow, ...rows].map((row) => {
    const r = row.result;
    const verdict =
      row.target === undefined
        ? httpPasses(row, ceiling)
          ? row === ceilingRow
            ? 'reference'
            : 'info'
          : 'FAIL (errors)'
        : httpPasses(row, ceiling)
          ? 'pass'
          : 'FAIL';
    const target = row.target === undefined ? '—' : `≥ ${pct(row.target)}`;
    const range = `${fmt(r.sliceRange[0])}–${fmt(r.sliceRange[1])}`;
    return `| ${row.name} | ${fmt(r.requestsPerSecond)} | ${range} | ${fmt(r.p99Ms, 2, 0)} | ${cpuOf(r)} | ${fmt(r.total)} | ${r.non2xx} | ${r.errors} | ${pct(r.requestsPerSecond / ceiling.requestsPerSecond)} | ${target} | ${verdict} |${cold(row.cachesOff)}`;
  });
  const coldHead = withCold ? ' caches off: req/s | caches off: p99 (ms) | caches off: CPU µs/req | caches off: ratio |' : '';
  const coldRule = withCold ? ' ---: | ---: | ---: | ---: |' : '';
  return [
    `| Scenario | req/s (avg) | slice req/s (min–max) | p99 (ms) | server CPU µs/req | requests | non-2xx | errors | ratio to ceiling | target | result |${coldHead}`,
    `| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |${coldRule}`,
    ...lines,
  ].join('\n');
}

export function renderReport(report: Report): string {
  const { load, micro, machine } = report;
  const microLines = report.microRows.map((row, i) => {
    const target = row.target === undefined ? '—' : `≥ ${pct(row.target)}`;
    const verdict = i === 0 ? 'reference' : row.target === undefined ? 'info' : microPasses(row) ? 'pass' : 'FAIL';
    return `| ${row.name} | ${fmt(row.opsPerSecond)} | ${pct(row.ratio)} | ${target} | ${verdict} |`;
  });
  return `## Core: HTTP conventions, primary-key read, login

- Date: ${report.date.toISOString()}
- Machine: ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ${machine.os}; load average ${fmt(machine.loadAverage, 2)} at the start
- Command: \`${report.command}\`

### HTTP (autocannon)

${load.connections} connections, pipelining ${load.pipelining}; per target ${load.warmupSeconds} s warm-up (discarded), then ${load.durationSeconds} s measured
in ${load.sliceSeconds} s slices that take turns between the targets. req/s is completed requests over measured seconds; the
slice range shows how much the machine drifted; p99 is the median of the slices' p99; server CPU µs/req is the server
process's CPU time (user + system, from /proc) over the requests it answered; the ratio is to the ceiling's req/s.

${httpTable(report.ceiling, report.http)}

### Primary-key read (in-process micro-benchmark)

\`SELECT * FROM web_store WHERE code = 'WEB'\` on one SQLite file (WAL), read sequentially.
${fmt(micro.warmupMs)} ms warm-up per variant, then ${micro.rounds} rounds of ${fmt(micro.roundMs)} ms per variant, alternating variants; median ops/s.

| Read | ops/s (median) | ratio to raw | target | result |
| --- | ---: | ---: | ---: | --- |
${microLines.join('\n')}

${renderLoginSection(report.login, machine.pinned)}
### Method

- All numbers above come from the same run of \`${report.command}\`.
- Each HTTP server runs in its own child process of plain \`node\` (no TypeScript loader), the load generator (autocannon, in
  \`run.ts\`) in the parent${machine.pinned ? '; the parent is pinned to CPU 0 and the servers to CPU 1 with `taskset`' : '; `taskset` was not available, so nothing is pinned'}.
  All servers are up for the whole HTTP part, but only one is under load at a time; the targets take turns in
  short slices so that a slow phase of the (shared, virtual) machine affects every ratio alike.
- Servers listen on 127.0.0.1 only, on a free port; all traffic is loopback.
- The ceiling is a bare \`node:http\` server answering \`{"status":"ok"}\` (\`bench/ceiling-server.mjs\`).
- The service is the compiled build (\`npm run build\` at the start of the run), \`dist/main.js serve --seed-demo\`,
  as it runs in production, on a fresh SQLite file in \`bench/.tmp/\`, with
  \`LOG_LEVEL=warn\` (so the per-request \`info\` log line is not written), default store WEB.
- In the HTTP table p99 comes from autocannon's latency histogram (1 ms resolution, 2xx answers only); the login
  section keeps every latency exactly (see there).
- A row fails if it misses its target or if any answer was not 2xx or any request errored or timed out.
- The login section runs after the HTTP part on a service process of its own (same command and settings, pinned the
  same way) whose fresh SQLite file got its users from \`src/main.ts import users\` before it started, with
  \`LEGACY_PASSWORD_SALT\` set and the auth rate limits raised to 100000000/1m per IP and per email.
`;
}

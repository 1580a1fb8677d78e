// The `soak` section of bench/RESULTS.md (bench/soak.ts).

export interface Window {
  /** Seconds from the start of the run. */
  fromS: number;
  requests: number;
  p50: number;
  p99: number;
}

/** One sample of the service process: resident memory in MB (all, anonymous, file-backed) and open descriptors. */
export interface ProcessSample {
  at: number;
  rssMb: number;
  anonMb: number;
  fileMb: number;
  /** The JS heap in use (the service's /metrics). */
  heapMb: number;
  fds: number;
  /** What the descriptors are, e.g. `socket 12, pipe 13, file 9`: what grew, when the fd check fails. */
  fdKinds: string;
}

export interface SoakReport {
  minutes: number;
  clients: number;
  warmupS: number;
  /** Seconds of samples each memory value is the median of. */
  spanS: number;
  requests: number;
  counts: Map<string, number>;
  failures: Map<string, number>;
  samples: ProcessSample[];
  windows: Window[];
  checks: Array<{ name: string; value: string; target: string; passed: boolean }>;
  passed: boolean;
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function soakSection(report: SoakReport, machine: string): string {
  const seconds = report.minutes * 60;
  const perMinute = report.samples.filter(
    (_, i) => i % Math.max(1, Math.round(report.samples.length / 12)) === 0 || i === report.samples.length - 1,
  );
  return `## Soak: mixed load on one service process

- Date: ${new Date().toISOString()}
- Machine: ${machine}
- Command: \`npm run build && npx tsx bench/soak.ts --minutes ${report.minutes} --clients ${report.clients}\`
- Result: **${report.passed ? 'pass' : 'FAIL'}**

${report.clients} closed-loop clients for ${report.minutes} min against \`dist/main.js serve\` (worker inline) on a SQLite file
with the demo bookstore; each draws an action per request: product list pages, product pages, search, autocomplete,
basket adds, simple registrations (queued mails) and full purchases through the test gateway (two basket adds,
checkout, create-form, pay, return; its worker processes the order and hands it to a local back office).
${fmt(report.requests)} actions (${fmt(report.requests / seconds, 1)}/s): ${[...report.counts].map(([a, n]) => `${a} ${fmt(n)}`).join(', ')}.
The first ${fmt(report.warmupS)} s are the warm-up. Samples every 2 s; memory after the warm-up is the median of the samples of the
${fmt(report.spanS)} s after it, at the end the median of the last ${fmt(report.spanS)} s (resident memory saw-tooths by tens of MB between
major collections, so single samples compare a peak with a trough). Leaks are judged on the live JS heap: the lowest
"heap used" of each span (the service's /metrics), a trough after a major collection. Resident memory is judged from
runs of 10 minutes or more (a shorter run reports it: V8 is still sizing its heap under full load); the part judged is the anonymous one
(heap and buffers, where a leak grows); the file-backed part is mostly the pages of the SQLite file the service maps,
which grow with the file as the run writes orders and accounts, and which the kernel may drop. Descriptors: the maximum of the first span against the
minimum of the last, all under the same load.

| Check | value | target | result |
| --- | ---: | --- | --- |
${report.checks.map((c) => `| ${c.name} | ${c.value} | ${c.target} | ${c.passed ? 'pass' : 'fail'} |`).join('\n')}

| Window from (s) | actions | p50 (ms) | p99 (ms) |
| ---: | ---: | ---: | ---: |
${report.windows.map((w) => `| ${fmt(w.fromS)} | ${fmt(w.requests)} | ${fmt(w.p50, 1)} | ${fmt(w.p99, 1)} |`).join('\n')}

| Time (s) | RSS (MB) | anonymous (MB) | file-backed (MB) | JS heap used (MB) | fds |
| ---: | ---: | ---: | ---: | ---: | ---: |
${perMinute.map((s) => `| ${fmt(s.at / 1000)} | ${fmt(s.rssMb, 1)} | ${fmt(s.anonMb, 1)} | ${fmt(s.fileMb, 1)} | ${fmt(s.heapMb, 1)} | ${s.fds} |`).join('\n')}
${report.failures.size > 0 ? `\nFailures:\n${[...report.failures].map(([k, n]) => `- ${n} × ${k}`).join('\n')}\n` : ''}`;
}

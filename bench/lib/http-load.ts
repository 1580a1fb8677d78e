import autocannon, { type Result } from 'autocannon';
import { median } from './stats.js';

export interface LoadOptions {
  connections: number;
  pipelining: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** The measured duration is cut into slices of this length, run in turn for every target. */
  sliceSeconds: number;
}

export interface LoadTarget {
  name: string;
  url: string;
  /** CPU seconds the server has used so far, if known: gives the server's CPU time per request. */
  serverCpuSeconds?: () => number | undefined;
  /**
   * Paths (with query) to spread the requests over, drawn at random per request, so a scenario
   * reads many products or pages as shoppers do instead of one cached answer; `url` gives the origin.
   */
  paths?: readonly string[];
}

export interface LoadResult {
  /** Completed requests over the measured seconds of all slices. */
  requestsPerSecond: number;
  /** Lowest and highest req/s of a single slice: a noise indicator. */
  sliceRange: [number, number];
  /** Server CPU time per completed request in microseconds; steadier than req/s on a noisy host. */
  serverCpuMicros: number | undefined;
  /** Median of the slices' p99 latencies. */
  p99Ms: number;
  total: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
}

/**
 * A discarded warm-up per target, then the measured duration in short slices that take turns
 * (A B C A B C ...), so a slow phase of a shared machine hits every target alike and the
 * ratios between targets stay fair.
 */
export async function measureInterleaved(targets: LoadTarget[], options: LoadOptions): Promise<Map<string, LoadResult>> {
  const run = (target: LoadTarget, duration: number) =>
    autocannon({
      url: target.url,
      duration,
      connections: options.connections,
      pipelining: options.pipelining,
      timeout: 10,
      ...(target.paths && { requests: [{ setupRequest: randomPath(target.paths) }] }),
    });
  for (const target of targets) await run(target, options.warmupSeconds);

  const slices = new Map<string, Slice[]>(targets.map((t) => [t.name, []]));
  for (let left = options.durationSeconds; left > 0; left -= options.sliceSeconds) {
    const seconds = Math.min(left, options.sliceSeconds);
    for (const target of targets) {
      const cpuBefore = target.serverCpuSeconds?.();
      const result = await run(target, seconds);
      const cpuAfter = target.serverCpuSeconds?.();
      const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
      slices.get(target.name)?.push(Object.assign(result, { cpu }));
    }
  }
  return new Map(targets.map((t) => [t.name, combine(slices.get(t.name) ?? [])]));
}

type Slice = Result & { cpu: number | undefined };

function randomPath(paths: readonly string[]) {
  return <R extends { path?: string }>(request: R): R => {
    request.path = paths[Math.floor(Math.random() * paths.length)];
    return request;
  };
}

function combine(results: Slice[]): LoadResult {
  const sum = (pick: (r: Slice) => number) => results.reduce((total, r) => total + pick(r), 0);
  const cpuKnown = results.every((r) => r.cpu !== undefined);
  const rates = results.map((r) => r.requests.total / r.duration);
  return {
    requestsPerSecond: sum((r) => r.requests.total) / sum((r) => r.duration),
    sliceRange: [Math.min(...rates), Math.max(...rates)],
    serverCpuMicros: cpuKnown ? (sum((r) => r.cpu ?? 0) / sum((r) => r.requests.total)) * 1e6 : undefined,
    p99Ms: median(results.map((r) => r.latency.p99)),
    total: sum((r) => r.requests.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors + r.timeouts),
  };
}

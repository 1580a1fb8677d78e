import autocannon, { type Result } from 'autocannon';
import { median, percentile } from './stats.js';

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
  /** Headers of every request (e.g. `store`: a shopper of another web store). */
  headers?: Record<string, string>;
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
  /**
   * p99 of the answers on connections that had answered before, over all slices: each slice opens
   * its connections anew, and a connection's first answer also waits to be accepted (the server's
   * loop accepts one per turn), which real clients keeping their connections do not.
   */
  p99OpenMs: number;
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
  const onOpen = new Map<string, number[]>(targets.map((t) => [t.name, []]));
  const run = (target: LoadTarget, duration: number, latencies?: number[]) =>
    autocannon({
      url: target.url,
      duration,
      connections: options.connections,
      pipelining: options.pipelining,
      timeout: 10,
      ...(target.headers && { headers: target.headers }),
      ...(target.paths && { requests: [{ setupRequest: randomPath(target.paths) }] }),
      ...(latencies && { setupClient: keepLatenciesAfterFirst(latencies) }),
    });
  for (const target of targets) await run(target, options.warmupSeconds);

  const slices = new Map<string, Slice[]>(targets.map((t) => [t.name, []]));
  for (let left = options.durationSeconds; left > 0; left -= options.sliceSeconds) {
    const seconds = Math.min(left, options.sliceSeconds);
    for (const target of targets) {
      const cpuBefore = target.serverCpuSeconds?.();
      const result = await run(target, seconds, onOpen.get(target.name));
      const cpuAfter = target.serverCpuSeconds?.();
      const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
      slices.get(target.name)?.push(Object.assign(result, { cpu }));
    }
  }
  return new Map(targets.map((t) => [t.name, combine(slices.get(t.name) ?? [], onOpen.get(t.name) ?? [])]));
}

type Slice = Result & { cpu: number | undefined };

/** autocannon's per-connection hook: every answer's latency (ms) but the connection's first. */
function keepLatenciesAfterFirst(latencies: number[]) {
  return (client: { on(event: 'response', listener: (status: number, bytes: number, ms: number) => void): void }) => {
    let first = true;
    client.on('response', (_status, _bytes, ms) => {
      if (first) first = false;
      else latencies.push(ms);
    });
  };
}

function randomPath(paths: readonly string[]) {
  return <R extends { path?: string }>(request: R): R => {
    request.path = paths[Math.floor(Math.random() * paths.length)];
    return request;
  };
}

function combine(results: Slice[], openLatencies: number[]): LoadResult {
  const sum = (pick: (r: Slice) => number) => results.reduce((total, r) => total + pick(r), 0);
  const cpuKnown = results.every((r) => r.cpu !== undefined);
  const rates = results.map((r) => r.requests.total / r.duration);
  return {
    requestsPerSecond: sum((r) => r.requests.total) / sum((r) => r.duration),
    sliceRange: [Math.min(...rates), Math.max(...rates)],
    serverCpuMicros: cpuKnown ? (sum((r) => r.cpu ?? 0) / sum((r) => r.requests.total)) * 1e6 : undefined,
    p99Ms: median(results.map((r) => r.latency.p99)),
    p99OpenMs: openLatencies.length > 0 ? Math.round(percentile(openLatencies, 99) * 10) / 10 : Number.NaN,
    total: sum((r) => r.requests.total),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors + r.timeouts),
  };
}

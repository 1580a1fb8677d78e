// Minimal types for the part of autocannon's programmatic API the benchmark uses
// (the package ships no types and @types/autocannon is not a dependency).
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    headers?: Record<string, string>;
    timeout?: number;
  }
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
  }
  interface Result {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { total: number };
  }
  /** Without a callback autocannon returns a thenable tracker that resolves with the result. */
  function autocannon(options: Options): PromiseLike<Result>;
  export default autocannon;
  export type { Options, Result };
}

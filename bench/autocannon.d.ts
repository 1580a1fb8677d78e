// Minimal types for the part of autocannon's programmatic API the benchmark uses
// (the package ships no types and @types/autocannon is not a dependency).
declare module 'autocannon' {
  interface RequestParams {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface RequestSpec extends RequestParams {
    /** Called before each request of a connection; returns the request to send. */
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
  }
  interface Options extends RequestParams {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    timeout?: number;
    /** Each connection cycles through these. */
    requests?: RequestSpec[];
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
  interface Instance extends PromiseLike<Result> {
    /** Every answer, with its latency in fractional milliseconds (the histogram keeps whole ones). */
    on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, latencyMs: number) => void): this;
  }
  function autocannon(options: Options): Instance;
  export default autocannon;
  export type { Instance, Options, RequestParams, RequestSpec, Result };
}

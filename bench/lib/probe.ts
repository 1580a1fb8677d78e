import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface ProbeOptions {
  /** Requests started per second, evenly spaced. */
  ratePerSecond: number;
  /** Keep-alive connections the probe may open; beyond that requests wait in the agent (and that wait counts). */
  maxSockets: number;
  timeoutMs: number;
}

export interface ProbeResult {
  /** Latency of every 2xx answer in fractional milliseconds, from issuing the request to the end of the body. */
  latenciesMs: number[];
  seconds: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
}

/**
 * GETs `target` (a URL, or a function that gives each request its URL) at a fixed rate for `seconds`, open loop: a request is started every 1/rate s whether
 * or not the earlier ones have been answered, so a stalled server shows up in the latencies instead
 * of slowing the probe down. Unlike autocannon's `overallRate` (each connection sends its quota for
 * the second back to back, then waits) the requests are evenly spaced, and the latencies are kept
 * exactly rather than in a histogram of whole milliseconds.
 */
export async function probe(target: string | (() => string), seconds: number, options: ProbeOptions): Promise<ProbeResult> {
  // A function gives each request its own URL (a shopper reading one product page after another).
  const urlOf = typeof target === 'string' ? () => target : target;
  const agent = new Agent({ keepAlive: true, maxSockets: options.maxSockets });
  const result: ProbeResult = { latenciesMs: [], seconds, non2xx: 0, errors: 0 };
  const interval = 1000 / options.ratePerSecond;
  try {
    await new Promise<void>((resolve) => {
      const start = performance.now();
      const end = start + seconds * 1000;
      let next = start;
      let inFlight = 0;
      let scheduling = true;
      const settled = () => {
        inFlight -= 1;
        if (!scheduling && inFlight === 0) resolve();
      };
      const send = () => {
        inFlight += 1;
        let done = false;
        const finish = (outcome: number | 'error') => {
          if (done) return;
          done = true;
          if (outcome === 'error') result.errors += 1;
          else if (outcome >= 200 && outcome < 300) result.latenciesMs.push(performance.now() - sentAt);
          else result.non2xx += 1;
          settled();
        };
        const sentAt = performance.now();
        const req = request(urlOf(), { agent, timeout: options.timeoutMs }, (res) => {
          res.on('error', () => finish('error'));
          res.on('end', () => finish(res.statusCode ?? 0));
          res.resume();
        });
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', () => finish('error'));
        req.end();
      };
      const tick = () => {
        // Catches up if this process was late; the parent is otherwise nearly idle, so it rarely is.
        for (const now = performance.now(); next <= now && next < end; next += interval) send();
        if (next < end) {
          setTimeout(tick, Math.max(0, next - performance.now()));
          return;
        }
        scheduling = false;
        if (inFlight === 0) resolve();
      };
      tick();
    });
  } finally {
    agent.destroy();
  }
  return result;
}

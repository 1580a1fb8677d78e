// A plain keep-alive HTTP client for the export benchmark: one request at a time, the body read to
// its end and its items counted (by a byte search, not a JSON parse, so the client costs little).
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

export interface Fetched {
  status: number;
  ms: number;
  bytes: number;
  /** Occurrences of the marker: items in the body. */
  items: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, when asked to keep it. */
  body?: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function countMarker(chunk: Buffer, marker: Buffer): number {
  let count = 0;
  for (let at = chunk.indexOf(marker); at !== -1; at = chunk.indexOf(marker, at + marker.length)) count += 1;
  return count;
}

/**
 * GETs `url` and reads the whole answer; `marker` (e.g. `{"order":`) counts the items in it.
 */
export async function fetchAll(url: string, headers: Record<string, string>, marker: string, keepBody = false): Promise<Fetched> {
  try {
    return await fetchOnce(url, headers, marker, keepBody);
  } catch (error) {
    // A kept-alive connection the server closed while idle (its keep-alive timeout passed during
    // a scan phase) fails the next request at once: a GET is safe to send again on a new one.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ECONNRESET' && code !== 'EPIPE') throw error;
    return fetchOnce(url, headers, marker, keepBody);
  }
}

function fetchOnce(url: string, headers: Record<string, string>, marker: string, keepBody: boolean): Promise<Fetched> {
  const needle = Buffer.from(marker);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { agent, headers }, (res) => {
      let bytes = 0;
      let items = 0;
      let tail = Buffer.alloc(0);
      const kept: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        items += countMarker(chunk, needle);
        // A marker split between two chunks: found in the seam (the previous chunk's tail and this one's head).
        if (tail.length > 0) items += countMarker(Buffer.concat([tail, chunk.subarray(0, needle.length - 1)]), needle);
        tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - (needle.length - 1))));
        if (keepBody) kept.push(chunk);
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          ms: performance.now() - started,
          bytes,
          items,
          headers: res.headers,
          body: keepBody ? Buffer.concat(kept) : undefined,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export function closeClient(): void {
  agent.destroy();
}

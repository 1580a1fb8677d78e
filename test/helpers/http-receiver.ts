import { createServer, type IncomingMessage } from 'node:http';
import { listenOnLoopback } from './loopback.js';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON, or the raw text when the body is not JSON ('' when there is none). */
  body: unknown;
}

export interface HttpReceiver {
  /** http://127.0.0.1:<port>, without a trailing slash. */
  url: string;
  requests: ReceivedRequest[];
  /** The answer to the requests that follow, sent `delayMs` after each arrived; 200 {} at once until told otherwise. */
  respondWith(status: number, body?: unknown, delayMs?: number): void;
  waitFor(predicate: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

interface Waiter {
  predicate: (r: ReceivedRequest) => boolean;
  resolve: (r: ReceivedRequest) => void;
}

/** A real HTTP server on 127.0.0.1 that records every request, to stand in for an outside API. */
export async function startHttpReceiver(): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const waiters = new Set<Waiter>();
  let reply: { status: number; body: unknown; delayMs: number } = { status: 200, body: {}, delayMs: 0 };

  const server = createServer((req, res) => {
    readBody(req).then(
      (text) => {
        const received: ReceivedRequest = {
          method: req.method ?? 'GET',
          url: req.url ?? '/',
          headers: { ...req.headers },
          body: parseBody(text),
        };
        requests.push(received);
        for (const waiter of waiters) {
          if (!waiter.predicate(received)) continue;
          waiters.delete(waiter);
          waiter.resolve(received);
        }
        const { status, body, delayMs } = reply;
        setTimeout(() => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        }, delayMs);
      },
      () => {
        res.writeHead(400).end();
      },
    );
  });

  const port = await listenOnLoopback(server);

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith(status, body = {}, delayMs = 0) {
      reply = { status, body, delayMs };
    },
    waitFor(predicate, timeoutMs = 5000) {
      const found = requests.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          predicate,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching request within ${timeoutMs} ms (received ${requests.length})`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close() {
      // Keep-alive sockets from fetch() would hold close() open until they time out.
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseBody(text: string): unknown {
  if (text === '') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';

// A proxy in front of the local S3 server that can hold the next read of an e-book's object until the
// test lets it go: a download then waits on the file store at the moment the test chooses.

export interface HoldingS3Proxy {
  /** The proxy's address, for FILE_STORE_S3_ENDPOINT. */
  endpoint: string;
  /** Holds the next GET of an `.epub` object; resolves once that read has reached the proxy. */
  holdNextRead(): Promise<void>;
  /** Lets every held read go to the S3 server. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingS3Proxy(s3Endpoint: string): Promise<HoldingS3Proxy> {
  const target = new URL(s3Endpoint);
  let holding = false;
  const held: Array<() => void> = [];
  let heldSeen: () => void = () => {};
  const proxy = createServer((incoming, answer) => {
    const pass = () =>
      incoming.pipe(
        forward(
          { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers },
          (from) => {
            answer.writeHead(from.statusCode ?? 502, from.headers);
            from.pipe(answer);
          },
        ),
      );
    if (holding && incoming.method === 'GET' && incoming.url?.includes('.epub')) {
      holding = false;
      held.push(pass);
      heldSeen();
    } else pass();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const release = () => {
    for (const pass of held.splice(0)) pass();
  };
  return {
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    holdNextRead() {
      const seen = new Promise<void>((resolve) => (heldSeen = resolve));
      holding = true;
      return seen;
    },
    release,
    async close() {
      release();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}

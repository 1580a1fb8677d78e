import { createServer, type IncomingMessage } from 'node:http';
import { listenOnLoopback } from '../helpers/loopback.js';

// A marketing platform's webhook endpoint on loopback: records what it receives (the raw body, to
// check the signature) and answers each request with what `answer` says, so a test makes the first
// attempts of some events fail.

export interface ReceivedWebhook {
  headers: IncomingMessage['headers'];
  raw: string;
  body: { id: number; type: string; stream: string; sequence: number; position: number; occurredAt: string; data: Record<string, unknown> };
  status: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** The status to answer a request with (200 unless told). */
  answer: (body: ReceivedWebhook['body'], attempt: number) => number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const attempts = new Map<number, number>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    answer: () => 200,
    close: async () => {},
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw) as ReceivedWebhook['body'];
      const attempt = (attempts.get(body.id) ?? 0) + 1;
      attempts.set(body.id, attempt);
      const status = receiver.answer(body, attempt);
      receiver.received.push({ headers: req.headers, raw, body, status });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  const port = await listenOnLoopback(server);
  receiver.url = `http://127.0.0.1:${port}/hooks`;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  };
  return receiver;
}

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { createListeningApp } from '../orders/helpers.js';

// What Node cannot parse as an HTTP request is answered before there is a request: in the
// documented error shape, with the headers every answer has, and the connection is closed.

let t: TestApp;
let port: number;
beforeAll(async () => {
  let origin: string;
  ({ t, origin } = await createListeningApp());
  port = Number(new URL(origin).port);
});
afterAll(async () => t?.close());

/** Sends raw bytes and reads everything until the server closes the connection. */
function raw(bytes: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.end(bytes);
  });
}

describe('requests Node cannot parse', () => {
  it('are a 400 in the error shape for a malformed request line, header or chunk', async () => {
    for (const bytes of [
      'GARBAGE\r\n\r\n',
      'GET /site/health HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
      'GET /site/health HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n',
      'POST /wishlist HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n',
    ]) {
      const answer = await raw(bytes);
      expect(answer.status, JSON.stringify(bytes)).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ name: 'Bad Request', message: 'Päring ei ole korrektne HTTP.', code: 0, status: 400 });
      expect(answer.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'content-type': 'application/json; charset=utf-8',
        'content-language': 'et',
        connection: 'close',
      });
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
    }
  });

  it('are a 431 for headers over the limit, and the service goes on answering', async () => {
    const answer = await raw(`GET /product?${'a=1&'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(answer.status).toBe(431);
    expect(JSON.parse(answer.body)).toMatchObject({ name: 'Request Header Fields Too Large', status: 431 });
    expect(answer.headers['referrer-policy']).toBe('no-referrer');
    expect((await fetch(`http://127.0.0.1:${port}/site/health`)).status).toBe(200);
  });
});

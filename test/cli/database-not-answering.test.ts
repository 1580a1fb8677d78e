import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

// A PostgreSQL DATABASE_URL whose server takes the connection and never answers (a hung server, a
// proxy in front of one that is down): the pool opened connections without a time limit, so every
// statement waited for good. A command never ended (and `serve` never started, nor said why), and an
// API process's /site/health never answered where it should say 503. Connecting now fails after
// DATABASE_CONNECT_TIMEOUT_MS (10 s by default), as an unreachable server does.

let silent: Server;
const sockets: Socket[] = [];
let url: string;
beforeAll(async () => {
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  url = `postgres://storefront@127.0.0.1:${port}/storefront`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

/** The command's result, or 'still waiting' after `ms`. */
const within = <T>(ms: number, work: Promise<T>) =>
  Promise.race([work, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms).unref())]);

describe('a PostgreSQL server that takes the connection and never answers', () => {
  it('fails a command after DATABASE_CONNECT_TIMEOUT_MS, exit 1, instead of waiting for good', async () => {
    const started = Date.now();
    const result = await within(8_000, runCli(['jobs', 'list'], { DATABASE_URL: url, DATABASE_CONNECT_TIMEOUT_MS: '500' }));
    expect(result).not.toBe('still waiting');
    if (result === 'still waiting') return;
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^error: the database server at 127\.0\.0\.1:\d+ did not answer within 500 ms \(DATABASE_CONNECT_TIMEOUT_MS\)/,
    );
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('refuses a connect timeout that is not a whole number of milliseconds from 100', async () => {
    const result = await runCli(['jobs', 'list'], { DATABASE_URL: url, DATABASE_CONNECT_TIMEOUT_MS: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('DATABASE_CONNECT_TIMEOUT_MS must be a whole number from 100 to 600000, got "0"');
  });
});

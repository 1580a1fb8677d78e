import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { linkSigner } from '../../src/modules/downloads/download-link.js';
import { expectErrorBody } from '../helpers/http.js';
import { createDownloadWorld, downloads, LINK_SECRET, linkPath, upload, type DownloadWorld } from './helpers.js';
import { keepEachTestInOneRateLimitWindow } from '../helpers/rate-limit-window.js';

keepEachTestInOneRateLimitWindow();

// A download link's token is its only credential. Tokens that do not verify (altered, made up) are
// counted per client address (infra/wrong-guesses.ts): past the limit the address is refused, its good
// links too, until the window ends. A genuine link that has expired is no guess and counts nothing.

let world: DownloadWorld;

beforeAll(async () => {
  world = await createDownloadWorld({ LINK_GUESS_RATE_LIMIT_PER_IP: '3/1h' });
  expect((await upload(world, world.ebooks[0]!.code, 'EPUB', randomBytes(1_000))).statusCode).toBe(200);
});
afterAll(async () => world?.close());

const fetchFrom = (path: string, ip: string) => world.t.app.inject({ method: 'GET', url: path, remoteAddress: ip });

it('refuses an address after three altered tokens, its good link too; another address is served', async () => {
  const [item] = await downloads(world, world.customer);
  const good = await linkPath(world, world.customer, item!.id);
  const altered = `${good.slice(0, -3)}${good.endsWith('AAA') ? 'BBB' : 'AAA'}`;
  for (let i = 0; i < 3; i += 1) expectErrorBody(await fetchFrom(altered, '203.0.113.70'), 403, 'Forbidden');
  const refused = await fetchFrom(good, '203.0.113.70');
  expectErrorBody(refused, 429, 'Too Many Requests');
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect((await fetchFrom(good, '203.0.113.71')).statusCode).toBe(200);
});

it('does not count an expired genuine link, nor good ones', async () => {
  const [item] = await downloads(world, world.customer);
  const expired = linkSigner(LINK_SECRET).sign({
    orderId: world.orderId,
    fileId: Number(item!.id.split('-')[1]),
    clientAccountId: world.customer.clientAccountId,
    expiresAt: Date.now() - 1_000,
  });
  for (let i = 0; i < 4; i += 1) expectErrorBody(await fetchFrom(`/direct-download/${expired}`, '203.0.113.72'), 403, 'Forbidden');
  const good = await linkPath(world, world.customer, item!.id);
  // Ranges, as a link serves its whole file three times only (DOWNLOAD_LINK_BUDGET).
  const range = { range: 'bytes=0-499' };
  for (let i = 0; i < 4; i += 1) {
    expect((await world.t.app.inject({ method: 'GET', url: good, remoteAddress: '203.0.113.72', headers: range })).statusCode).toBe(206);
  }
});

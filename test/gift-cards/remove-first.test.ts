import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../basket/helpers.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { newCode } from './helpers.js';

// A process's first gift-card action that is a removal. The server key codes are looked up by is
// read (or made) once per process; read inside the basket's transaction on SQLite, that read
// waited for the transaction it ran in, and every later request of the process waited behind it.
// A fresh app is a fresh process here: nothing has looked up a code before these requests.

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe('DELETE /basket/remove-gift-card as the first gift-card action of a process', () => {
  it('answers 404 for a card that is not on the basket, and the service keeps answering', async () => {
    const removal = call(t, 'DELETE', `/basket/remove-gift-card?code=${encodeURIComponent(newCode())}`, { ip: '10.9.0.1' });
    const answer = await Promise.race([removal, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 5_000).unref())]);
    expect(answer === 'hung' ? 'hung' : answer.statusCode).toBe(404);
    // Other requests are not held by an open transaction either.
    expect((await call(t, 'GET', '/basket', { ip: '10.9.0.2' })).statusCode).toBe(200);
  });
});

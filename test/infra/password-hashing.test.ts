import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, passwordHashQueue, setPasswordHashConcurrency, verifyPassword } from '../../src/infra/passwords.js';
import { runCli } from '../helpers/cli.js';
import { createTestApp, migratedScratchDatabase, type TestApp } from '../helpers/test-app.js';

// PASSWORD_HASH_CONCURRENCY reaches the process's password hashing queue (infra/passwords.ts) from
// the settings an app or a command is built with, and the queue holds to it. Observed through the
// queue's own counts (running, waiting, the most that ran at once), never through timing.

let apps: TestApp[] = [];
const appWith = async (concurrency: string) => {
  const t = await createTestApp({ env: { PASSWORD_HASH_CONCURRENCY: concurrency } });
  apps.push(t);
  return t;
};
afterAll(async () => {
  await Promise.all(apps.map((t) => t.close()));
  apps = [];
});

describe('the password hashing queue', () => {
  // The first app in a file also loads the app's modules: in a hook, with the hooks' longer timeout.
  beforeAll(() => appWith('3'));

  it("takes its size from the app's settings", async () => {
    expect(passwordHashQueue().concurrency).toBe(3);
    await appWith('1');
    expect(passwordHashQueue().concurrency).toBe(1);
  });

  it('with one at a time, two logins at once hash one after the other', async () => {
    const one = await appWith('1');
    expect(passwordHashQueue()).toMatchObject({ concurrency: 1, running: 0, waiting: 0 });
    const login = () =>
      one.app.inject({
        method: 'POST',
        url: '/auth/login',
        headers: { store: 'WEB' },
        payload: { email: `nobody-${Math.random()}@example.ee`, password: 'whatever-123', web_store_nav_code: 'WEB' },
      });
    // An unknown email still costs a hash (verifyPassword against the dummy), so both hash.
    const answers = await Promise.all([login(), login()]);
    for (const answer of answers) expect(answer.statusCode, answer.body).toBe(422);
    expect(passwordHashQueue()).toEqual({ concurrency: 1, running: 0, waiting: 0, mostRunning: 1 });
  });

  it('with one at a time, the second hash waits; with two, both run; a larger size starts those waiting', async () => {
    await appWith('1');
    const first = [hashPassword('first-password-1'), hashPassword('second-password-2')];
    expect(passwordHashQueue()).toMatchObject({ concurrency: 1, running: 1, waiting: 1 });
    const [a, b] = await Promise.all(first);
    expect(await verifyPassword(a!, 'first-password-1', undefined)).toEqual({ ok: true, rehash: false });
    expect(await verifyPassword(b!, 'second-password-2', undefined)).toEqual({ ok: true, rehash: false });
    expect(passwordHashQueue()).toEqual({ concurrency: 1, running: 0, waiting: 0, mostRunning: 1 });

    await appWith('2');
    const second = [hashPassword('third-password-3'), hashPassword('fourth-password-4'), hashPassword('fifth-password-5')];
    expect(passwordHashQueue()).toMatchObject({ concurrency: 2, running: 2, waiting: 1 });
    setPasswordHashConcurrency(3);
    expect(passwordHashQueue()).toMatchObject({ concurrency: 3, running: 3, waiting: 0 });
    await Promise.all(second);
    expect(passwordHashQueue()).toEqual({ concurrency: 3, running: 0, waiting: 0, mostRunning: 3 });
  });

  it("takes its size from a command's settings (export-user hashes the password it makes)", async () => {
    const scratch = await migratedScratchDatabase();
    try {
      const added = await runCli(['export-user', 'add', 'analytics'], { DATABASE_URL: scratch.url, PASSWORD_HASH_CONCURRENCY: '2' });
      expect(added.code, added.stderr).toBe(0);
      expect(passwordHashQueue()).toMatchObject({ concurrency: 2, running: 0, waiting: 0 });
    } finally {
      await scratch.drop();
    }
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// TEST_GATEWAY unset: `serve --seed-demo` (npm start) serves the test gateway's page. (Without the
// demo it is off: test-gateway-switch.test.ts and the config tests.)

let env: Record<string, string>;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'storefront-tg-serve-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'serve.db')}`, MAIL_DIR: join(dir, 'mail') };
  if (scratch) {
    const migrated = await runCli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
  }
  cleanup = async () => {
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  };
}, 120_000);
afterAll(() => cleanup());

it('serve --seed-demo turns the test gateway on when TEST_GATEWAY is unset', { timeout: 120_000 }, async () => {
  const child = startCli(['serve', '--seed-demo'], { ...env, PORT: '0', LOG_LEVEL: 'info', WORKER: 'off' });
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listen line in: ${log}`)), 100_000);
      const onData = (chunk: Buffer) => {
        log += chunk.toString();
        const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.on('close', () => reject(new Error(`serve exited: ${log}`)));
    });
    // The route is there: an unknown payment is the gateway's own 404 page, not the API's JSON 404.
    const response = await fetch(`${url}/payment/test/pay/tgp_${'D'.repeat(24)}`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toContain('Payment not found');
  } finally {
    child.kill('SIGTERM');
  }
  expect(await exited).toBe(0);
});

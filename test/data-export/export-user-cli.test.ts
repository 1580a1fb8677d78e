import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { ExportUserError, normaliseCidrs } from '../../src/modules/data-export/export-user.service.js';
import { runCli, runCliProcess } from '../helpers/cli.js';
import { engine, migratedScratchDatabase, TEST_CARD_TOKEN_KEYS } from '../helpers/test-app.js';
import { basic } from './fixtures.js';

let dir: string;
let env: Record<string, string>;
let drop: () => Promise<void> = async () => {};
let database: DatabaseHandle;
let app: App;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-export-user-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  // The app built below opens saved cards' tokens as the commands do (PostgreSQL requires the key).
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}`, CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS };
  if (scratch) drop = scratch.drop;
  expect((await runCli(['migrate'], env)).code).toBe(0);
  database = createDatabase(env.DATABASE_URL!);
  app = await buildApp(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { database });
});

afterAll(async () => {
  await app?.close();
  await database?.close();
  await drop();
  rmSync(dir, { recursive: true, force: true });
});

const shops = (authorization: string, remoteAddress = '10.1.2.3') =>
  app.inject({ method: 'GET', url: '/export/shop', headers: { authorization }, remoteAddress });

describe('export-user commands', () => {
  let password = '';

  it('add prints a generated password once and stores only its argon2id hash', async () => {
    const added = await runCli(['export-user', 'add', 'analytics', '--allow-ip', '10.0.0.0/8', '--allow-ip', '2001:DB8::/32'], env);
    expect(added.code, added.stderr).toBe(0);
    password = added.stdout.trim().split('\n').at(-1)!;
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const row = await database.db.selectFrom('export_user').selectAll().executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(row)).not.toContain(password);
    expect(JSON.parse(row.allowed_cidrs)).toEqual(['10.0.0.0/8', '2001:db8::/32']);
    expect((await shops(basic('analytics', password))).statusCode).toBe(200);
    expect((await shops(basic('analytics', password), '192.168.0.1')).statusCode).toBe(403);
  });

  it('refuses a bad name and a bad network (exit 2), and a second user of the same name (exit 1)', async () => {
    for (const args of [['add', 'has:colon'], ['add', 'ok-name', '--allow-ip', '10.0.0.0/33'], ['frobnicate']]) {
      const result = await runCli(['export-user', ...args], env);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: /);
    }
    // The command line is right, the name is taken: the message alone, not a page of usage.
    const taken = await runCli(['export-user', 'add', 'analytics'], env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe(
      'error: export-user add: export user "analytics" exists already (rotate its password with: export-user rotate analytics)\n',
    );
    expect(await database.db.selectFrom('export_user').select('name').execute()).toEqual([{ name: 'analytics' }]);
  }, 60_000);

  it('accepts IPv4 and IPv6 addresses and blocks, and nothing else', () => {
    expect(normaliseCidrs(['10.0.0.0/8', '192.0.2.1', '2001:DB8::/32', '::1', '10.0.0.0/8'])).toEqual([
      '10.0.0.0/8',
      '192.0.2.1/32',
      '2001:db8::/32',
      '::1/128',
    ]);
    for (const bad of ['10.0.0.0/33', '2001:db8::/129', 'example.com', '10.0.0/8', '10.0.0.0/8/1', '10.0.0.0/x', '']) {
      expect(() => normaliseCidrs([bad]), bad).toThrow(ExportUserError);
    }
  });

  it('list shows the users, their state and allowlists', async () => {
    const listed = await runCliProcess(['export-user', 'list'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^analytics\tenabled\t10\.0\.0\.0\/8,2001:db8::\/32\tcreated \d{4}-/);
    expect(listed.stdout).not.toContain(password);
  });

  it('disable answers 403, enable undoes it; allow replaces the allowlist', async () => {
    expect((await runCli(['export-user', 'disable', 'analytics'], env)).code).toBe(0);
    expect((await shops(basic('analytics', password))).statusCode).toBe(403);
    expect((await runCli(['export-user', 'list'], env)).stdout).toContain('DISABLED');
    expect((await runCli(['export-user', 'enable', 'analytics'], env)).code).toBe(0);
    expect((await runCli(['export-user', 'allow', 'analytics'], env)).code).toBe(0);
    expect((await shops(basic('analytics', password), '192.168.0.1')).statusCode).toBe(200);
  }, 60_000);

  it('rotate replaces the password; remove deletes the user', async () => {
    const rotated = await runCli(['export-user', 'rotate', 'analytics'], env);
    expect(rotated.code).toBe(0);
    const fresh = rotated.stdout.trim().split('\n').at(-1)!;
    expect(fresh).not.toBe(password);
    expect((await shops(basic('analytics', password))).statusCode).toBe(401);
    expect((await shops(basic('analytics', fresh))).statusCode).toBe(200);
    expect((await runCli(['export-user', 'remove', 'analytics'], env)).code).toBe(0);
    expect((await shops(basic('analytics', fresh))).statusCode).toBe(401);
  }, 60_000);

  it('exits 1 with one line when the user it names is not there', async () => {
    for (const action of ['rotate', 'disable', 'enable', 'allow', 'remove']) {
      const result = await runCli(['export-user', action, 'nobody'], env);
      expect(result.code, action).toBe(1);
      expect(result.stderr).toBe(`error: export-user ${action}: no export user "nobody"\n`);
    }
  }, 60_000);
});

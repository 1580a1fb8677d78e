import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { engine, scratchDatabase } from '../helpers/test-app.js';

// The operators' commands of the partner integrations, as real processes.

let dir: string;
let env: Record<string, string>;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-integrations-cli-'));
  const scratch = engine === 'postgres' ? await scratchDatabase() : undefined;
  drop = scratch?.drop;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
  if (scratch) expect((await runCli(['migrate'], env)).code).toBe(0);
});
afterAll(async () => {
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

const run = (...args: string[]) => runCli(args, env);

describe('storefront supplier, webhook and event-feed', () => {
  it('adds a supplier (its secret printed once), disables and enables it, rotates its secret, lists and removes it', async () => {
    const added = await run('supplier', 'add', 'ACME', 'Acme', 'Books');
    expect(added.code, added.stderr).toBe(0);
    const secret = added.stdout.trim().split('\n').pop()!;
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await run('supplier', 'add', 'ACME', 'Again')).code).toBe(1);
    expect((await run('supplier', 'disable', 'ACME')).stdout).toContain('disabled');
    let listed = await run('supplier', 'list');
    expect(listed.stdout).toMatch(/^ACME\tAcme Books\tDISABLED \S+Z\t0 active products/m);
    expect(listed.stdout).not.toContain(secret);
    await run('supplier', 'enable', 'ACME');
    const rotated = (await run('supplier', 'rotate', 'ACME')).stdout.trim().split('\n').pop()!;
    expect(rotated).not.toBe(secret);
    listed = await run('supplier', 'list');
    expect(listed.stdout).toMatch(/^ACME\tAcme Books\tenabled\t/m);
    expect((await run('supplier', 'remove', 'ACME')).code).toBe(0);
    expect((await run('supplier', 'list')).stdout).toContain('No suppliers.');
    const unknown = await run('supplier', 'rotate', 'NOBODY');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no supplier with code "NOBODY"');
    expect((await run('supplier', 'frobnicate')).code).toBe(2);
  });

  it('adds, lists and removes webhook endpoints; replays say how many deliveries were queued', async () => {
    const added = await run(
      'webhook',
      'add',
      'crm',
      'https://crm.example/hooks',
      '--events',
      'customer.,order.created',
      '--max-attempts',
      '5',
    );
    expect(added.code, added.stderr).toBe(0);
    const secret = added.stdout.trim().split('\n').pop()!;
    const listed = await run('webhook', 'list');
    expect(listed.stdout).toMatch(/^crm\thttps:\/\/crm\.example\/hooks\tevents customer\.,order\.created\tmax attempts 5/m);
    expect(listed.stdout).not.toContain(secret);
    expect((await run('webhook', 'add', 'bad', 'ftp://x')).code).toBe(1);
    expect((await run('webhook', 'add', 'bad', 'https://x.example', '--events', 'DROP TABLE')).code).toBe(1);
    expect((await run('webhook', 'replay', 'crm', '--dead')).stdout).toContain('0 deliveries queued again.');
    expect((await run('webhook', 'deliveries', 'crm')).stdout).toContain('No deliveries.');
    expect((await run('webhook', 'replay', 'crm', '--from', 'x', '--to', '2')).code).toBe(2);
    expect((await run('webhook', 'remove', 'crm')).code).toBe(0);
    expect((await run('webhook', 'list')).stdout).toContain('No webhook endpoints.');
  });

  it('adds an event feed client (its token printed once) and revokes it', async () => {
    const added = await run('event-feed', 'add', 'platform');
    expect(added.code, added.stderr).toBe(0);
    const token = added.stdout.trim().split('\n').pop()!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await run('event-feed', 'revoke', 'platform')).stdout).toContain('revoked');
    const listed = await run('event-feed', 'list');
    expect(listed.stdout).toMatch(/^platform\tcreated \S+Z\tnever used\tREVOKED/m);
    expect(listed.stdout).not.toContain(token);
  });
});

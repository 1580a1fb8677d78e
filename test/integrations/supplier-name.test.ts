import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// `supplier list` prints a supplier a line, its columns split by tabs. A name given with a line
// break or a tab (pasted from a spreadsheet) was kept as it was: the list then showed the supplier
// over two lines, or with a column too many. A supplier's name is one line, as a store's is
// (`store set --name`, test/cli/cli.test.ts): a control character in it is a bad argument.

let dir: string;
let env: Record<string, string>;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'storefront-supplier-name-'));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  drop = scratch?.drop;
  env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}` };
  expect((await runCli(['migrate'], env)).code).toBe(0);
});
afterAll(async () => {
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('supplier add', () => {
  it('refuses a name with a line break, a tab or another control character (exit 2), adding nothing', async () => {
    for (const [code, name] of [
      ['LB', 'Acme\nBooks'],
      ['TAB', 'Acme\tBooks'],
      ['ESC', 'Acme\u001b[31mBooks'],
    ]) {
      const added = await runCli(['supplier', 'add', code!, name!], env);
      expect(added.code, code).toBe(2);
      expect(added.stderr).toContain('supplier add: a supplier name is one line of 1 to 200 characters');
      expect(added.stdout).toBe('');
    }
    expect((await runCli(['supplier', 'list'], env)).stdout.trim()).toBe('No suppliers.');
  });

  it('takes a name of one line, spaces and letters of any language included, listed on one line', async () => {
    expect((await runCli(['supplier', 'add', 'ACME', 'Acme', 'Raamatud', 'OÜ'], env)).code).toBe(0);
    const listed = (await runCli(['supplier', 'list'], env)).stdout.trim().split('\n');
    expect(listed).toHaveLength(1);
    expect(listed[0]!.split('\t').slice(0, 2)).toEqual(['ACME', 'Acme Raamatud OÜ']);
  });
});

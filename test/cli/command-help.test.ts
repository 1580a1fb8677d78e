import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliScratch, runCli, runCliProcess, type CliScratch } from '../helpers/cli.js';

// An operator's first look at a command is `storefront <command> --help`, which was a usage error
// (exit 2, "unknown argument --help"), and a mistyped option printed its one line above the ~150
// lines of every command's usage, scrolled out of sight on a terminal. A command's help is now its
// own lines (exit 0), and a mistake in its command line is answered with the message above them.

const USAGE_HEAD = 'usage: npm run cli -- <command>   (or: storefront <command>)';
const EVERY_COMMAND = 'Every command: help (storefront help, or npm run cli -- help)';

let cli: CliScratch;
beforeAll(async () => {
  cli = await cliScratch('storefront-help-');
});
afterAll(() => cli.remove());

describe("a command's help", () => {
  it('is printed for `<command> --help`, `-h` and `help <command>`, exit 0, without reading the settings', async () => {
    const process = await runCliProcess(['jobs', '--help'], { ...cli.env, PORT: 'not a port' });
    expect(process.code).toBe(0);
    expect(process.stderr).toBe('');
    expect(process.stdout).toMatch(new RegExp(`^${USAGE_HEAD.replace(/[()]/g, '\\$&')}\n\n  jobs list \\[--status=`));
    expect(process.stdout).toContain('  jobs retry <id>');
    expect(process.stdout).toContain(`\n\n${EVERY_COMMAND}\n`);
    expect(process.stdout).not.toContain('store lock');
    for (const args of [
      ['jobs', 'list', '-h'],
      ['help', 'jobs'],
    ]) {
      expect(await runCli(args, cli.env), args.join(' ')).toEqual({ code: 0, stdout: process.stdout, stderr: '' });
    }
  });

  it.each([
    [['restore', '--help'], '  restore <file>'],
    [['backup', '-h'], '  backup <file>'],
    [['import', '--help'], '  import products <file.ndjson> [--force]'],
    [['subscription', 'settle', '--help'], '  subscription settle <orderReference>'],
    [['order', 'retry-refund', '--help'], '  order payments --refund-refused'],
    [['help', 'serve'], '  serve [--seed-demo]'],
  ])('of %j names its own commands', async (args, line) => {
    const result = await runCli(args, cli.env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`\n${line}`);
    expect(result.stdout).not.toContain('  gdpr erase');
  });

  it('refuses a command it does not know, and lists them all then', async () => {
    const result = await runCli(['help', 'frobnicate'], cli.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: help: there is no command "frobnicate"; help alone lists them all\n\nusage: /);
    expect((await runCli(['help'], cli.env)).stdout).toContain('  help [<command>]');
  });
});

describe('a mistake in a command line', () => {
  it.each([
    [['jobs', 'list', '--status=failed'], '--status must be one of pending, running, done, dead', '  jobs retry <id>'],
    [['store'], 'store: give a command, list, lock, unlock or set', '  store unlock <CODE>'],
    [['store', 'open', 'WEB'], 'unknown store command "open WEB"', '  store unlock <CODE>'],
    [['store', 'lock'], 'store lock: give a store code, WEB or WEB2', '  store unlock <CODE>'],
    [['newsletter', 'export', '--format=xml'], 'newsletter export: --format is ndjson or csv', '  newsletter export'],
  ])('%j: the message above that command family usage only, exit 2', async (args, message, line) => {
    const result = await runCli(args, cli.env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.startsWith(`error: ${message}\n\n${USAGE_HEAD}\n\n`), result.stderr).toBe(true);
    expect(result.stderr).toContain(`\n${line}`);
    expect(result.stderr.endsWith(`\n\n${EVERY_COMMAND}\n`), result.stderr).toBe(true);
    expect(result.stderr.split('\n').length).toBeLessThan(20);
  });

  it('of a command that does not exist still lists every command', async () => {
    const result = await runCli(['frobnicate'], cli.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('  store lock <CODE>');
    expect(result.stderr).toContain('  gdpr erase <email>');
  });
});

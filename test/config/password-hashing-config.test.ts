import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { configProblems } from '../helpers/config.js';
import { runCli } from '../helpers/cli.js';

// PASSWORD_HASH_CONCURRENCY is a setting like the others: read with them from the environment a
// process or runCli is given, and a bad value stops the start with the others' message.

describe('PASSWORD_HASH_CONCURRENCY', () => {
  it('is cores - 1 (at least 1) unless set, and is read as given', () => {
    expect(loadConfig({}).passwordHashConcurrency).toBe(Math.min(64, Math.max(1, availableParallelism() - 1)));
    expect(loadConfig({ PASSWORD_HASH_CONCURRENCY: ' ' }).passwordHashConcurrency).toBe(loadConfig({}).passwordHashConcurrency);
    expect(loadConfig({ PASSWORD_HASH_CONCURRENCY: '1' }).passwordHashConcurrency).toBe(1);
    expect(loadConfig({ PASSWORD_HASH_CONCURRENCY: '64' }).passwordHashConcurrency).toBe(64);
  });

  it('refuses anything but a whole number from 1 to 64, with the message other settings give', () => {
    for (const bad of ['abc', '0', '-1', '1.5', '2x', '65', '1e3']) {
      expect(configProblems({ PASSWORD_HASH_CONCURRENCY: bad }), bad).toEqual([
        `PASSWORD_HASH_CONCURRENCY must be a whole number from 1 to 64, got "${bad}"`,
      ]);
    }
  });

  it('stops a command at start, named among the other bad settings', async () => {
    const result = await runCli(['migrate'], { DATABASE_URL: 'sqlite::memory:', PASSWORD_HASH_CONCURRENCY: 'abc', PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('Invalid configuration:');
    expect(result.stderr).toContain('  - PASSWORD_HASH_CONCURRENCY must be a whole number from 1 to 64, got "abc"');
    expect(result.stderr).toContain('  - PORT must be');
  });
});

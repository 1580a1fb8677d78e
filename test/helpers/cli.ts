import { spawn, type ChildProcess } from 'node:child_process';
import { Readable } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { runCli as runCommandLine } from '../../src/cli.js';
import { engine, migratedScratchDatabase, TEST_CARD_TOKEN_KEYS } from './test-app.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment a command gets: only what a test gives it, as an operator's shell would, a quieter
 * log, and the test apps' card token key (an empty CARD_TOKEN_KEYS: none).
 */
const environment = (env: Record<string, string>) => ({
  PATH: process.env.PATH ?? '',
  LOG_LEVEL: 'warn',
  CARD_TOKEN_KEYS: TEST_CARD_TOKEN_KEYS,
  ...env,
});

/**
 * Runs `storefront <args>` to the end in this process: the binary's own code (src/cli.ts's runCli,
 * which src/main.ts calls) on `env` and streams of its own, without starting a process (about half a
 * second each, several seconds on a loaded machine). What a process adds (its arguments, exit status
 * and signals) is covered by the tests that use runCliProcess or startCli, a few per command family.
 */
export async function runCli(args: string[], env: Record<string, string>, stdin?: string): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCommandLine(args, {
    env: environment(env),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: stdin === undefined ? undefined : Readable.from([Buffer.from(stdin)]),
  });
  return { code, stdout, stderr };
}

/**
 * Starts `storefront <args>` as a real process, the way an operator runs it: src/main.ts compiled
 * once per run by the global setup (test/setup/cli-build.ts), or through tsx without it.
 */
export function startCli(args: string[], env: Record<string, string>): ChildProcess {
  const compiled = inject('cliEntry');
  return spawn(process.execPath, [...(compiled ? [compiled] : ['--import', 'tsx', 'src/main.ts']), ...args], {
    cwd: root,
    env: environment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs `storefront <args>` as a real process (startCli) to the end. With `killAfterMs` (for `serve`
 * and `worker`, which run until stopped when they start) it is killed then, and its code is null.
 */
export function runCliProcess(
  args: string[],
  env: Record<string, string>,
  { killAfterMs }: { killAfterMs?: number } = {},
): Promise<CliResult> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** A migrated database of its own for the command line, and a folder for the files it is given. */
export interface CliScratch {
  dir: string;
  /** The commands' environment: the database's URL, and log lines as JSON (jsonLogLines reads them). */
  env: Record<string, string>;
  /** Writes `lines` into the folder as NDJSON; the file's path. */
  ndjsonFile(name: string, lines: unknown[]): string;
  /** Drops the database and removes the folder. */
  remove(): Promise<void>;
}

/**
 * A CliScratch: a file in the folder on SQLite, migrated by the command line; on PostgreSQL a copy of
 * the migrated template (running every migration on an empty database took seconds a file), where
 * the command line's migrate finds nothing to do.
 */
export async function cliScratch(prefix: string): Promise<CliScratch> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const scratch = engine === 'postgres' ? await migratedScratchDatabase() : undefined;
  const env = { DATABASE_URL: scratch?.url ?? `sqlite:${join(dir, 'cli.db')}`, LOG_FORMAT: 'json' };
  const migrated = await runCli(['migrate'], env);
  if (migrated.code !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);
  return {
    dir,
    env,
    ndjsonFile(name, lines) {
      const path = join(dir, name);
      writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n'));
      return path;
    },
    async remove() {
      await scratch?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The JSON log lines among a command's stderr lines (its reports are plain text). */
export const jsonLogLines = (stderr: string): Array<Record<string, unknown>> =>
  stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

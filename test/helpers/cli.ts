import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `storefront <args>` as a real process, the way an operator runs it: src/main.ts compiled
 * once per run by the global setup (test/setup/cli-build.ts), or through tsx without it.
 */
export function startCli(args: string[], env: Record<string, string>): ChildProcess {
  const compiled = inject('cliEntry');
  return spawn(process.execPath, [...(compiled ? [compiled] : ['--import', 'tsx', 'src/main.ts']), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `storefront <args>` to the end. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = startCli(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

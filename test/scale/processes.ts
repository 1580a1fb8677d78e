import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ParsedMail } from 'mailparser';
import { describe } from 'vitest';
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { startCli } from '../helpers/cli.js';
import { startSmtpCatcher, type SmtpCatcher } from '../helpers/smtp.js';
import { engine, migratedScratchDatabase } from '../helpers/test-app.js';

// The deployment docs/deployment.md describes, run for real: API processes (`serve`, WORKER=off)
// and `storefront worker` processes of the compiled build on one PostgreSQL database. SQLite is
// for one machine (the same doc), so these files skip there, saying why.

/** describe() on PostgreSQL; on SQLite a skip whose name says why. */
export function describeOnPostgres(name: string, tests: () => void): void {
  if (engine === 'postgres') describe(name, tests);
  else describe.skip(`${name} (skipped on SQLite: many processes share one PostgreSQL database, docs/deployment.md)`, tests);
}

/** A started `serve` or `worker`. */
export interface RunningProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> for an API; '' for a worker. */
  url: string;
  /** Everything it printed so far. */
  output(): string;
  /** Resolves with the exit code (null after a signal that killed it). */
  exited: Promise<number | null>;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). */
  stop(): Promise<number | null>;
}

export interface Deployment {
  databaseUrl: string;
  database: DatabaseHandle;
  smtp: SmtpCatcher;
  /** The environment every process gets (add to it per process). */
  env: Record<string, string>;
  startApi(extra?: Record<string, string>): Promise<RunningProcess>;
  startWorker(extra?: Record<string, string>): Promise<RunningProcess>;
  close(): Promise<void>;
}

const START_TIMEOUT_MS = 45_000;

/**
 * A migrated PostgreSQL database of its own (a copy of the run's template), an SMTP catcher, and
 * the environment of the doc's layout; processes are started on it by the file.
 */
export async function createDeployment(env: Record<string, string> = {}): Promise<Deployment> {
  const scratch = await migratedScratchDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'storefront-scale-'));
  const smtp = await startSmtpCatcher();
  const database = createDatabase(scratch.url);
  const running = new Set<RunningProcess>();
  const common: Record<string, string> = {
    DATABASE_URL: scratch.url,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    WORKER: 'off',
    SMTP_URL: smtp.url,
    MAIL_DIR: join(dir, 'mail'),
    TEST_GATEWAY: 'on',
    TRUST_PROXY: 'loopback',
    PASSWORD_HASH_CONCURRENCY: '1',
    ...env,
  };
  const start = async (args: string[], ready: RegExp, extra: Record<string, string>) => {
    const started = launch(args, { ...common, PORT: '0', ...extra }, ready);
    running.add(started.process);
    void started.process.exited.then(() => running.delete(started.process));
    await started.ready;
    return started.process;
  };
  return {
    databaseUrl: scratch.url,
    database,
    smtp,
    env: common,
    startApi: (extra = {}) => start(['serve'], API_READY, extra),
    startWorker: (extra = {}) => start(['worker'], WORKER_READY, extra),
    async close() {
      await Promise.all([...running].map((p) => p.stop()));
      await database.close();
      await smtp.close();
      await scratch.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What `serve` logs once it listens (at LOG_LEVEL=info), with its address; and a worker once it polls. */
const API_READY = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/;
const WORKER_READY = /worker started/;

/** `storefront serve` on `env` alone (give it DATABASE_URL), listening on a free loopback port. */
export async function startApiOn(env: Record<string, string>): Promise<RunningProcess> {
  const started = launch(['serve'], { HOST: '127.0.0.1', PORT: '0', WORKER: 'off', LOG_LEVEL: 'info', ...env }, API_READY);
  await started.ready;
  return started.process;
}

function launch(args: string[], env: Record<string, string>, ready: RegExp) {
  const child = startCli(args, env);
  let log = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const process: RunningProcess = {
    child,
    url: '',
    output: () => log,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
  const readyPromise = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start in time:\n${log}`)), START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      const match = ready.exec(log);
      if (match && !process.url) {
        clearTimeout(timer);
        process.url = match[1] ?? '';
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${String(code)}) before it started:\n${log}`));
    });
  });
  return { process, ready: readyPromise };
}

/** A request to one process (store WEB unless told); answers its status and its body, parsed when JSON. */
export async function call(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each test reads the fields of the answer it expects
): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      store: 'WEB',
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...options.headers,
    },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, body, headers: response.headers };
}

/** Whether `mail` went to `email`. */
export function sentTo(mail: ParsedMail, email: string): boolean {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.some((address) => address.value.some((v) => v.address?.toLowerCase() === email.toLowerCase()));
}

import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const LOOPBACK = '127.0.0.1';
// A loaded machine seeds the demo slowly: BENCH_READY_TIMEOUT_MS gives a child longer.
const READY_TIMEOUT_MS = Number(process.env.BENCH_READY_TIMEOUT_MS) || 30_000;
const STOP_GRACE_MS = 5_000;
const SCRIPT_TIMEOUT_MS = 60_000;
const EXIT_GUARD = pathToFileURL(fileURLToPath(new URL('./exit-with-parent.mjs', import.meta.url))).href;

/**
 * The environment of a bench's service processes: this one's, and a card token key of the run's own
 * unless it sets one, so that its APIs and workers on PostgreSQL (which refuse to start without one)
 * seal and open saved cards' tokens alike.
 */
export const serviceEnvironment = (): NodeJS.ProcessEnv => ({ CARD_TOKEN_KEYS: BENCH_CARD_TOKEN_KEYS, ...process.env });
const BENCH_CARD_TOKEN_KEYS = `bench:${randomBytes(32).toString('base64')}`;

export interface ChildSpec {
  /** Script relative to the project root: `.ts` runs with `node --import tsx`, `.js`/`.mjs` with plain node. */
  script: string;
  args?: string[];
  env?: Record<string, string>;
  /** Path polled with GET until it answers 200. */
  readyPath: string;
  /** Options for node itself (`--cpu-prof`, which NODE_OPTIONS does not take). */
  nodeOptions?: string[];
  /** How long to wait for readyPath (READY_TIMEOUT_MS by default; a long soak on a busy machine may wait longer). */
  readyTimeoutMs?: number;
}

export interface RunningChild {
  baseUrl: string;
  /** The server's process id (for reading its memory from /proc). */
  pid: number;
  /** CPU seconds (user + system, all threads) the child has used so far; undefined off Linux. */
  cpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let pinned = false;

/**
 * Pins this process (the load generator) to CPU 0 so servers started later can have CPU 1.
 * Returns false, and nothing is pinned, where `taskset` is missing or not allowed.
 */
export function pinLoadGenerator(): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
    pinned = true;
  } catch {
    pinned = false;
  }
  return pinned;
}

/** A free TCP port on the loopback interface. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, LOOPBACK, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error('no free port'))));
    });
  });
}

/**
 * Starts a server in a child process of its own (pinned to CPU 1 after pinLoadGenerator()), on 127.0.0.1
 * and a free port, and waits until it answers. The child is one `node` process, so signals reach it directly.
 */
export async function startChild(spec: ChildSpec, root: string): Promise<RunningChild> {
  const port = await freePort();
  // TypeScript goes through tsx; compiled JavaScript runs as it would in production.
  const loader = spec.script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const nodeArgs = [...(spec.nodeOptions ?? []), ...loader, '--import', EXIT_GUARD, spec.script, ...(spec.args ?? [])];
  const [command, args] = pinned ? ['taskset', ['-c', '1', process.execPath, ...nodeArgs]] : [process.execPath, nodeArgs];
  const child = spawn(command, args, {
    cwd: root,
    env: { ...serviceEnvironment(), ...spec.env, PORT: String(port), HOST: LOOPBACK },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  running.add(child);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (running.delete(child), resolve())));

  const baseUrl = `http://${LOOPBACK}:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitReady(`${baseUrl}${spec.readyPath}`, exited, spec.readyTimeoutMs);
  } catch (err) {
    await stop();
    throw new Error(`${spec.script} did not start: ${(err as Error).message}\n${output}`);
  }
  return { baseUrl, pid: child.pid!, stop, cpuSeconds: () => cpuSecondsOf(child.pid) };
}

/**
 * Runs a script to its end with `node --import tsx` (a CLI command, say), relative to the project root;
 * resolves with its stdout, rejects with its output on a non-zero exit or after 60 s.
 */
export function runScript(script: string, args: string[], env: Record<string, string>, root: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, ...args],
      { cwd: root, env: { ...process.env, ...env }, timeout: SCRIPT_TIMEOUT_MS, killSignal: 'SIGKILL' },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${script} ${args.join(' ')} failed: ${err.message}\n${stdout}${stderr}`)) : resolve(stdout),
    );
  });
}

/** utime + stime from /proc/<pid>/stat, in clock ticks of 1/100 s (USER_HZ, 100 on Linux). */
function cpuSecondsOf(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; the fields after it are space-separated.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

async function waitReady(url: string, exited: Promise<void>, timeoutMs = READY_TIMEOUT_MS): Promise<void> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gone) throw new Error('the process exited');
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.arrayBuffer();
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no 200 from ${url} within ${timeoutMs} ms`);
}

/** Last resort on exit or a crash of run.ts: no child outlives it. */
export function killAllChildren(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

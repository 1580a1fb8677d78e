// Login under load: login throughput at N concurrent clients, and `GET /site/health` p99 measured
// alone and again while that login load runs against the same service process, in one run.
// The password hash (argon2id) runs on the service's hashing threads at a lower priority, so the health answers should barely slow down.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { runScript, type RunningChild } from './lib/child.js';
import { probe, type ProbeOptions, type ProbeResult } from './lib/probe.js';
import { percentile } from './lib/stats.js';

const LEGACY_SALT = 'bench-legacy-salt';
const STORE = 'WEB';

/** Env of the service under login load: the auth rate limits out of the way, imported legacy hashes readable. */
export const LOGIN_SERVICE_ENV: Record<string, string> = {
  LEGACY_PASSWORD_SALT: LEGACY_SALT,
  AUTH_RATE_LIMIT_PER_IP: '100000000/1m',
  AUTH_RATE_LIMIT_PER_EMAIL: '100000000/1m',
};

export interface LoginOptions {
  users: number;
  /** Concurrent login clients (autocannon connections), each sending the next user's login as soon as it has an answer. */
  connections: number;
  /** The health probe. */
  probe: ProbeOptions;
  warmupSeconds: number;
  durationSeconds: number;
  sliceSeconds: number;
  /** In the concurrent slices the login load starts this long before the probe and ends this long after it. */
  leadSeconds: number;
  /**
   * Pause after every login run: autocannon stops sending at the end of its duration, but the server
   * still hashes the logins in flight (up to one per connection), which would spill into the next phase.
   */
  settleSeconds: number;
  /** Highest allowed p99(health under login load) / p99(health alone). */
  maxP99Ratio: number;
}

export interface Credentials {
  email: string;
  password: string;
}

export interface PhaseResult {
  /** Completed requests over the measured seconds of all slices. */
  requestsPerSecond: number;
  /** Over the 2xx answers of all slices together. */
  p50Ms: number;
  p99Ms: number;
  /** Lowest and highest p99 of a single slice: a noise indicator. */
  sliceP99Range: [number, number];
  total: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  /** Server CPU time (all threads) per completed request, where measured. */
  serverCpuMs?: number;
}

export interface LoginSection {
  options: LoginOptions;
  /** Login load alone. */
  login: PhaseResult;
  /** The login load of the concurrent slices, lead time included (for information). */
  loginProbed: PhaseResult;
  healthAlone: PhaseResult;
  healthLoaded: PhaseResult;
  /** PASSWORD_HASH_CONCURRENCY of the server (it inherits this process's environment); undefined: the default. */
  hashConcurrency: string | undefined;
  /** p99 of health under login load over its p99 alone. */
  p99Ratio: number;
}

/** The section passes when the ratio is within its target and every request of every phase got a 2xx. */
export function loginPasses(section: LoginSection): boolean {
  const phases = [section.login, section.loginProbed, section.healthAlone, section.healthLoaded];
  return section.p99Ratio <= section.options.maxP99Ratio && phases.every((p) => p.non2xx === 0 && p.errors === 0);
}

/**
 * Writes `count` users of store WEB with legacy (SHA-512) passwords to an NDJSON file in `dir` and
 * imports them with the service's own CLI into the SQLite file the service will then be started on.
 */
export async function importLoginUsers(dbFile: string, dir: string, root: string, count: number): Promise<Credentials[]> {
  const users = Array.from({ length: count }, (_, i) => ({ email: `bench${i + 1}@example.ee`, password: `Bench-login-${i + 1}-secret` }));
  const lines = users.map((user) =>
    JSON.stringify({
      email: user.email,
      store: STORE,
      accountType: 'SIMPLE',
      activated: true,
      legacyPasswordHash: createHash('sha512').update(`${LEGACY_SALT}-${user.password}-`).digest('hex'),
    }),
  );
  const file = join(dir, 'login-users.ndjson');
  writeFileSync(file, `${lines.join('\n')}\n`);
  const env = { DATABASE_URL: `sqlite:${dbFile}`, LEGACY_PASSWORD_SALT: LEGACY_SALT, LOG_LEVEL: 'warn' };
  // The file is new: `migrate` makes it, as an operator does; `import` refuses a database that is not there.
  await runScript('src/main.ts', ['migrate'], env, root);
  await runScript('src/main.ts', ['import', 'users', file], env, root);
  return users;
}

/**
 * One login per user first (it turns the legacy hash into argon2id, so every measured login verifies
 * an argon2id hash), a discarded warm-up of both loads, then slices that take turns:
 * login alone, health alone, health while the login load runs.
 */
export async function benchLogin(server: RunningChild, users: Credentials[], options: LoginOptions): Promise<LoginSection> {
  for (const user of users) await firstLogin(server.baseUrl, user);
  const bodies = users.map((user) => JSON.stringify({ email: user.email, password: user.password, web_store_nav_code: STORE }));
  const login = (seconds: number) => loginLoad(server.baseUrl, bodies, options.connections, seconds);
  const health = (seconds: number) => probe(`${server.baseUrl}/site/health`, seconds, options.probe);

  const settle = () => pause(options.settleSeconds);
  const warm = await login(options.warmupSeconds);
  await settle();
  if (warm.result.non2xx > 0 || warm.result.errors > 0) {
    throw new Error(`login warm-up: status codes ${JSON.stringify(warm.result.statusCodeStats)}, ${warm.result.errors} errors`);
  }
  await health(options.warmupSeconds);

  const loginAlone: LoadSlice[] = [];
  const loginProbed: LoadSlice[] = [];
  const healthAlone: ProbeResult[] = [];
  const healthLoaded: ProbeResult[] = [];
  for (let left = options.durationSeconds; left > 0; left -= options.sliceSeconds) {
    const seconds = Math.min(left, options.sliceSeconds);
    const cpuBefore = server.cpuSeconds();
    const alone = await login(seconds);
    // Read at once: the server was busy hashing the whole run, so CPU time over completed logins is the cost of one.
    const cpuAfter = server.cpuSeconds();
    await settle();
    loginAlone.push({ ...alone, cpuSeconds: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore });
    healthAlone.push(await health(seconds));
    const background = login(seconds + 2 * options.leadSeconds);
    await pause(options.leadSeconds);
    healthLoaded.push(await health(seconds));
    loginProbed.push(await background);
    await settle();
  }
  const loaded = combineProbes(healthLoaded);
  const aloneHealth = combineProbes(healthAlone);
  return {
    options,
    login: combineLoads(loginAlone),
    loginProbed: combineLoads(loginProbed),
    healthAlone: aloneHealth,
    healthLoaded: loaded,
    hashConcurrency: process.env.PASSWORD_HASH_CONCURRENCY || undefined,
    p99Ratio: loaded.p99Ms / aloneHealth.p99Ms,
  };
}

const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));

async function firstLogin(baseUrl: string, user: Credentials): Promise<void> {
  const response = await fetch(`${baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: user.email, password: user.password, web_store_nav_code: STORE }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await response.json()) as { accessToken?: unknown };
  if (response.status !== 200 || typeof body.accessToken !== 'string') {
    throw new Error(`first login of ${user.email}: ${response.status} ${JSON.stringify(body)}`);
  }
}

interface LoadSlice {
  result: Result;
  /** Latencies of the 2xx answers, fractional milliseconds. */
  latenciesMs: number[];
  cpuSeconds?: number;
}

/** `connections` clients logging in back to back, the users taken in turn. */
async function loginLoad(baseUrl: string, bodies: string[], connections: number, seconds: number): Promise<LoadSlice> {
  let next = 0;
  const latenciesMs: number[] = [];
  const instance = autocannon({
    url: `${baseUrl}/auth/login`,
    connections,
    duration: seconds,
    timeout: 10,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }],
  });
  instance.on('response', (_client, status, _bytes, latencyMs) => {
    if (status >= 200 && status < 300) latenciesMs.push(latencyMs);
  });
  return { result: await instance, latenciesMs };
}

function combineLoads(slices: LoadSlice[]): PhaseResult {
  const sum = (pick: (s: LoadSlice) => number) => slices.reduce((total, s) => total + pick(s), 0);
  const total = sum((s) => s.result.requests.total);
  const cpuKnown = slices.every((s) => s.cpuSeconds !== undefined);
  return {
    ...latencySummary(slices.map((s) => s.latenciesMs)),
    requestsPerSecond: total / sum((s) => s.result.duration),
    total,
    non2xx: sum((s) => s.result.non2xx),
    errors: sum((s) => s.result.errors + s.result.timeouts),
    serverCpuMs: cpuKnown && slices.length > 0 ? (sum((s) => s.cpuSeconds ?? 0) / total) * 1000 : undefined,
  };
}

function combineProbes(slices: ProbeResult[]): PhaseResult {
  const sum = (pick: (s: ProbeResult) => number) => slices.reduce((total, s) => total + pick(s), 0);
  const total = sum((s) => s.latenciesMs.length + s.non2xx);
  return {
    ...latencySummary(slices.map((s) => s.latenciesMs)),
    requestsPerSecond: total / sum((s) => s.seconds),
    total,
    non2xx: sum((s) => s.non2xx),
    errors: sum((s) => s.errors),
  };
}

function latencySummary(perSlice: number[][]): Pick<PhaseResult, 'p50Ms' | 'p99Ms' | 'sliceP99Range'> {
  const all = perSlice.flat();
  const sliceP99s = perSlice.map((latencies) => percentile(latencies, 99));
  return { p50Ms: percentile(all, 50), p99Ms: percentile(all, 99), sliceP99Range: [Math.min(...sliceP99s), Math.max(...sliceP99s)] };
}

import { loginPasses, type LoginSection, type PhaseResult } from '../login.js';

const fmt = (value: number, digits = 0, minDigits = digits) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: minDigits });
const ms = (value: number) => fmt(value, 2, 2);

/** The "Login under load" section of RESULTS.md. */
export function renderLoginSection(section: LoginSection, pinned: boolean): string {
  const { options: o } = section;
  const rate = fmt(o.probe.ratePerSecond);
  const row = (name: string, p: PhaseResult) =>
    `| ${name} | ${fmt(p.requestsPerSecond, 1, 1)} | ${ms(p.p50Ms)} | ${ms(p.p99Ms)} | ${ms(p.sliceP99Range[0])}–${ms(p.sliceP99Range[1])} | ${p.serverCpuMs === undefined ? '—' : fmt(p.serverCpuMs, 1, 1)} | ${fmt(p.total)} | ${p.non2xx} | ${p.errors} |`;
  const verdict = loginPasses(section) ? 'pass' : 'FAIL';
  const hashes =
    section.hashConcurrency !== undefined
      ? `\`PASSWORD_HASH_CONCURRENCY=${section.hashConcurrency}\``
      : pinned
        ? 'the default, cores − 1 and at least 1: 1 on the one CPU the service is pinned to'
        : 'the default, cores − 1 and at least 1';
  const cpus = pinned ? 'pinned to one CPU (CPU 1; the load generator has CPU 0)' : 'not pinned (`taskset` was not available)';
  const share = pinned ? 'that one core (the machine has 2)' : "the machine's cores with the load generator";
  return `### Login under load

\`POST /auth/login\` (argon2id, m = 19 MiB, t = 2, via @node-rs/argon2 on the service's hashing threads at nice 10) from ${o.connections} concurrent
clients, and \`GET /site/health\` probed at a fixed ${rate} req/s alone and again while that login load runs against the
same server process. ${o.users} imported users (store WEB, simple accounts), logged in round-robin; each logged in once
before measuring, which turned its legacy SHA-512 hash into argon2id, so every measured login verifies one argon2id hash.
Per phase ${o.warmupSeconds} s warm-up (discarded), then ${o.durationSeconds} s measured in ${o.sliceSeconds} s slices that take turns:
login alone, health alone, health under login load (the login load starts ${o.leadSeconds} s before the probe and stops
${o.leadSeconds} s after it). After every login run the bench waits ${o.settleSeconds} s, so the logins still in flight when
autocannon stops are hashed before the next phase starts.

| Phase | req/s | p50 (ms) | p99 (ms) | slice p99 (min–max, ms) | server CPU ms/req | requests | non-2xx | errors |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${row(`login, ${o.connections} connections, alone`, section.login)}
${row(`\`GET /site/health\` at ${rate} req/s, alone`, section.healthAlone)}
${row(`\`GET /site/health\` at ${rate} req/s, under the login load`, section.healthLoaded)}
${row(`login, ${o.connections} connections, while probed (info)`, section.loginProbed)}

| Measure | value | target | result |
| --- | ---: | ---: | --- |
| p99 of \`GET /site/health\` under login load / alone | ${fmt(section.p99Ratio, 2, 2)}× (${ms(section.healthLoaded.p99Ms)} / ${ms(section.healthAlone.p99Ms)} ms) | ≤ ${fmt(o.maxP99Ratio)}× | ${verdict} |
| login throughput, ${o.connections} connections | ${fmt(section.login.requestsPerSecond, 1, 1)} req/s | — | info |

- Server CPU: ${cpus}. Hashes at once: ${hashes} (src/infra/passwords.ts), each on a thread of its own at nice 10
  (src/infra/password-hash-threads.ts). The event loop and the hashing share ${share}, so login throughput is bounded by
  the hashing rate of that CPU; no hash runs on the event loop, and at nice 10 the event loop takes the core whenever a
  request comes in, so the health answers wait for the scheduler less than they would for a thread of equal priority.
- The health probe is open loop: one request every ${ms(1000 / o.probe.ratePerSecond)} ms, evenly spaced, on up to ${o.probe.maxSockets} keep-alive
  connections, whether or not earlier ones were answered, so a stalled event loop shows in the latencies rather than
  slowing the probe. At this light rate the server is far from saturated, so the p99 is mostly loopback and
  event-loop latency (how soon the event loop gets to a request), which is what the target is about. The probe's
  latencies are exact (fractional ms, from issuing the request to the end of the answer), not autocannon's whole-ms
  histogram, and p50/p99 are taken over all slices' answers together. autocannon's \`overallRate\` was not used: it sends
  each connection's quota for the second back to back and then waits, which measures a burst, not a steady rate.
- Login latencies are autocannon's per-answer latencies, also exact; a login's latency includes waiting for a free
  place in the hashing queue, as ${o.connections} clients share it.
- The section fails if the ratio misses its target or any login or probe request got a non-2xx answer or an error.
`;
}

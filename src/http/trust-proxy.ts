import { isIP } from 'node:net';
import type { EnvReader } from '../infra/env.js';

/**
 * Which proxies in front may tell the client's address (X-Forwarded-For): none (`false`), a number
 * of hops, or the proxies' own addresses and blocks (see `trustProxyOption`).
 *
 * Trusting every hop is not an option: the left-most X-Forwarded-For entry is whatever the client
 * wrote, so the client would choose its own address (past an export user's allowlist, around the
 * per-address rate limits).
 */
export type TrustProxy = false | number | string[];

/** proxy-addr's (and so Fastify's) names for the reserved ranges. */
const NAMED_RANGES = ['loopback', 'linklocal', 'uniquelocal'];
const MAX_HOPS = 20;

const EXAMPLES = 'the number of proxies in front (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.0/8,fd00::/8)';

/** TRUST_PROXY: `false` (default), a hop count, or comma-separated addresses, CIDR blocks and named ranges. */
export function readTrustProxy(env: EnvReader): TrustProxy {
  const raw = env.read('TRUST_PROXY', 'false');
  const parsed = parseTrustProxy(raw);
  if (typeof parsed === 'object' && 'problem' in parsed) {
    env.problem(parsed.problem);
    return false;
  }
  return parsed;
}

export function parseTrustProxy(raw: string): TrustProxy | { problem: string } {
  const value = raw.trim();
  if (/^(false|no|off|0)$/i.test(value) || value === '') return false;
  if (/^(true|yes|on|all|\*)$/i.test(value)) {
    return {
      problem:
        `TRUST_PROXY=${value} would trust every hop, so a client could choose its own address by sending X-Forwarded-For; ` +
        `set ${EXAMPLES}`,
    };
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) return { problem: `TRUST_PROXY must be a hop count from 0 to ${MAX_HOPS}, got "${value}"; set ${EXAMPLES}` };
    return hops;
  }
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.filter((entry) => !isProxyAddress(entry));
  if (bad.length > 0) {
    return {
      problem:
        `TRUST_PROXY must be false, a hop count or comma-separated proxy addresses and CIDR blocks ` +
        `(or ${NAMED_RANGES.join(', ')}), got "${bad.join('", "')}"; set ${EXAMPLES}`,
    };
  }
  return entries.map((entry) => entry.toLowerCase());
}

/** An IPv4 or IPv6 address, a CIDR block of either, or one of the named ranges. */
function isProxyAddress(entry: string): boolean {
  if (NAMED_RANGES.includes(entry.toLowerCase())) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  if (rest.length > 0) return false;
  const version = isIP(address);
  if (version === 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** What Fastify's `trustProxy` takes for a setting: proxy-addr's function (address, hop) for a hop count. */
export function trustProxyOption(setting: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  if (setting === 0) return false;
  // Fastify refuses a bare number (it trusts nothing then): a hop count cannot tell a proxy from a
  // client that connects directly. That is the operator's promise here (README: only when the
  // service is reachable through the proxies alone); addresses are the safer setting.
  return (_address, hop) => hop < setting;
}

// Reading settings from the environment. Each module reads its own config section with these
// (`read<M>Config(env)` in its `<m>.config.ts`); src/config.ts composes the sections. A bad value
// is recorded as a problem and replaced by its default, so one run reports every bad variable.
import type { RateLimit } from './rate-limit.js';
import { RATE_LIMIT_KEPT_MS } from './rate-limit-window.js';

export type Env = Record<string, string | undefined>;

export interface EnvReader {
  /** The trimmed value, or the fallback when unset or blank. */
  read(name: string, fallback: string): string;
  /** The trimmed value, or undefined when unset or blank. */
  optional(name: string): string | undefined;
  integer(name: string, fallback: number, min: number, max: number): number;
  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T;
  /** Comma-separated, items trimmed, empty ones dropped. */
  list(name: string): string[];
  /** A duration such as 90s, 15m, 1h, 30d or whole seconds, in milliseconds (above zero). */
  duration(name: string, fallback: string): number;
  /** A duration a timer waits (setInterval, setTimeout): at most TIMER_MAX_MS. */
  interval(name: string, fallback: string): number;
  /** `<count>/<duration>` such as 30/1m. */
  rateLimit(name: string, fallback: string): RateLimit;
  /** Empty or a path prefix like /api/v1 (no trailing slash); "/" means empty. */
  pathPrefix(name: string, fallback: string): string;
  /** A path like /verify-email. */
  urlPath(name: string, fallback: string): string;
  /** Records a problem a section found itself (a value that depends on another, a malformed URL). */
  problem(message: string): void;
}

/** A reader of `env` and the problems it has found so far. */
export function envReader(env: Env): { reader: EnvReader; problems: string[] } {
  const problems: string[] = [];
  const read = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? fallback : value.trim();
  };

  const reader: EnvReader = {
    read,

    optional(name) {
      const value = read(name, '');
      return value === '' ? undefined : value;
    },

    integer(name, fallback, min, max) {
      const raw = read(name, String(fallback));
      const value = Number(raw);
      if (!/^\d+$/.test(raw) || value < min || value > max) {
        problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
        return fallback;
      }
      return value;
    },

    oneOf(name, fallback, allowed) {
      const raw = read(name, fallback);
      if (!(allowed as readonly string[]).includes(raw)) {
        problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
        return fallback;
      }
      return raw as typeof fallback;
    },

    list(name) {
      return read(name, '')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    },

    duration(name, fallback) {
      const raw = read(name, fallback);
      const ms = parseDuration(raw);
      if (ms === undefined || ms <= 0) {
        problems.push(`${name} must be a duration such as 90s, 15m, 1h or 30d (or whole seconds), got "${raw}"`);
        return parseDuration(fallback)!;
      }
      return ms;
    },

    interval(name, fallback) {
      const ms = reader.duration(name, fallback);
      // Node runs a timer of a longer delay after 1 ms instead (TimeoutOverflowWarning): a sweep
      // meant to run monthly ran back to back, without end.
      if (ms > TIMER_MAX_MS) {
        problems.push(`${name} must be at most 24d (the longest wait of a timer), got "${read(name, fallback)}"`);
        return parseDuration(fallback)!;
      }
      return ms;
    },

    rateLimit(name, fallback) {
      const raw = read(name, fallback);
      const limit = parseRateLimit(raw);
      if (limit === undefined) {
        problems.push(`${name} must be <count>/<duration> such as 30/1m, got "${raw}"`);
        return parseRateLimit(fallback)!;
      }
      if (limit.windowMs > RATE_LIMIT_KEPT_MS) {
        problems.push(`${name} must count over a day at most (counters are pruned a day after their window starts), got "${raw}"`);
        return parseRateLimit(fallback)!;
      }
      return limit;
    },

    pathPrefix(name, fallback) {
      const raw = read(name, fallback);
      if (raw === '' || raw === '/') return '';
      if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) {
        problems.push(`${name} must be empty or a path like /api/v1 (no trailing slash), got "${raw}"`);
        return fallback;
      }
      return raw;
    },

    urlPath(name, fallback) {
      const raw = read(name, fallback);
      if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) {
        problems.push(`${name} must be a path like ${fallback}, got "${raw}"`);
        return fallback;
      }
      return raw;
    },

    problem(message) {
      problems.push(message);
    },
  };
  return { reader, problems };
}

/** The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days). */
export const TIMER_MAX_MS = 2_147_483_647;

const DURATION_UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "90s", "15m", "1h", "30d", or whole seconds ("3600"), in milliseconds. */
export function parseDuration(value: string): number | undefined {
  const match = /^(\d+)([smhd]?)$/.exec(value.trim());
  if (!match) return undefined;
  return Number(match[1]) * DURATION_UNITS[match[2] || 's']!;
}

/** "30/1m": at most 30 in one minute. */
function parseRateLimit(value: string): RateLimit | undefined {
  const [count = '', window = ''] = value.split('/', 2);
  const windowMs = parseDuration(window);
  if (!/^\d+$/.test(count) || Number(count) < 1 || windowMs === undefined || windowMs <= 0) return undefined;
  return { max: Number(count), windowMs };
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * PUBLIC_URL (no trailing slash), by default this service on its own port. A bad PORT is config.ts's
 * to report: the default is then made with the default port, so that PUBLIC_URL, which nobody set,
 * is not reported as a second bad value ("PUBLIC_URL must be an http(s) URL, got http://127.0.0.1:abc").
 */
export function readPublicUrl(env: EnvReader): string {
  const port = env.read('PORT', '3000');
  const ownPort = /^\d{1,5}$/.test(port) && Number(port) <= 65_535 ? port : '3000';
  return env.read('PUBLIC_URL', `http://127.0.0.1:${ownPort}`).replace(/\/+$/, '');
}

import { LANGUAGES, type Language } from './i18n/index.js';

export const STORE_CODES = ['WEB', 'WEB2'] as const;
export type StoreCode = (typeof STORE_CODES)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
type LogLevel = (typeof LOG_LEVELS)[number];

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  basePath: string;
  dataExportPath: string;
  corsOrigins: string[];
  defaultStore: StoreCode;
  defaultLanguage: Language;
  logLevel: LogLevel;
  /** How long a process may serve store settings (lock, active, languages) before reading them again. */
  storeCacheTtlMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads the whole configuration from the environment and reports every bad value at once. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string, fallback: string): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? fallback : value.trim();
  };

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = read(name, String(fallback));
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return value;
  };

  const oneOf = <T extends string>(name: string, fallback: T, allowed: readonly T[]): T => {
    const raw = read(name, fallback);
    if (!(allowed as readonly string[]).includes(raw)) {
      problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  };

  const pathPrefix = (name: string, fallback: string): string => {
    const raw = read(name, fallback);
    if (raw === '' || raw === '/') return '';
    if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(raw)) {
      problems.push(`${name} must be empty or a path like /api/v1 (no trailing slash), got "${raw}"`);
      return fallback;
    }
    return raw;
  };

  const databaseUrl = read('DATABASE_URL', 'sqlite:./data/storefront.db');
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must be sqlite:<file>, sqlite::memory: or postgres://..., got "${databaseUrl}"`);
  }

  const corsOrigins = read('CORS_ORIGINS', '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
  for (const origin of corsOrigins) {
    if (!isOrigin(origin)) problems.push(`CORS_ORIGINS entries must be origins like https://shop.example, got "${origin}"`);
  }

  const config: Config = {
    port: integer('PORT', 3000, 0, 65535),
    host: read('HOST', '127.0.0.1'),
    databaseUrl,
    basePath: pathPrefix('BASE_PATH', ''),
    dataExportPath: pathPrefix('DATA_EXPORT_PATH', '/export'),
    corsOrigins,
    defaultStore: oneOf('DEFAULT_STORE', 'WEB', STORE_CODES),
    defaultLanguage: oneOf('DEFAULT_LANGUAGE', 'et', LANGUAGES),
    logLevel: oneOf('LOG_LEVEL', 'info', LOG_LEVELS),
    storeCacheTtlMs: integer('STORE_CACHE_TTL_MS', 1000, 0, 60_000),
  };
  if (config.dataExportPath === '' || config.dataExportPath === config.basePath) {
    problems.push('DATA_EXPORT_PATH must be a path prefix of its own, different from BASE_PATH');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value;
  } catch {
    return false;
  }
}

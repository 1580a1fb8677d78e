import type { Kysely } from 'kysely';
import { STORE_CODES, type StoreCode } from '../../config.js';
import type { DatabaseHandle } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { Database } from '../../db/schema.js';
import { ttlCache } from '../../infra/ttl-cache.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { findStore, listStores, updateStore, type WebStoreRow } from './store.repository.js';

export interface StoreSettings {
  code: StoreCode;
  name: string;
  isActive: boolean;
  isLocked: boolean;
  /** Unix ms when the lock should end, when known. */
  lockedUntil: number | null;
  availableLanguages: Language[];
  defaultLanguage: Language;
  frontendUrl: string;
  currency: string;
  /** Pricing: the store's discount for guests and for logged-in retail customers, percent. */
  guestDiscountPercent: number;
  loggedInDiscountPercent: number;
}

export function isStoreCode(value: unknown): value is StoreCode {
  return typeof value === 'string' && (STORE_CODES as readonly string[]).includes(value);
}

function toSettings(row: WebStoreRow): StoreSettings {
  const languages = row.available_languages.split(',').filter(isLanguage);
  const defaultLanguage = isLanguage(row.default_language) ? row.default_language : (languages[0] ?? 'et');
  return {
    code: row.code as StoreCode,
    name: row.name,
    isActive: Boolean(row.is_active),
    isLocked: Boolean(row.is_locked),
    lockedUntil: row.locked_until,
    availableLanguages: languages.length > 0 ? languages : [defaultLanguage],
    defaultLanguage,
    frontendUrl: row.frontend_url,
    currency: row.currency,
    guestDiscountPercent: row.guest_discount_percent,
    loggedInDiscountPercent: row.logged_in_discount_percent,
  };
}

export interface StoreCache {
  get(code: StoreCode): Promise<StoreSettings | undefined>;
  invalidate(): void;
}

/**
 * Store settings are read on every store-scoped request, so each process keeps them for `ttlMs`.
 * Changes made by this process are seen at once; changes by another process (the CLI, another API
 * process) within `ttlMs`. With a TTL of 0 every request reads the database.
 */
export function createStoreCache(database: DatabaseHandle, ttlMs: number): StoreCache {
  const find = preparedQuery(database, (db, code: string) => db.selectFrom('web_store').selectAll().where('code', '=', code));
  const cache = ttlCache(ttlMs, async (code: StoreCode) => {
    const [row] = await find(code);
    return row && toSettings(row);
  });
  return { get: (code) => cache.get(code), invalidate: () => cache.clear() };
}

export async function getAllStores(db: Kysely<Database>): Promise<StoreSettings[]> {
  return (await listStores(db)).map(toSettings);
}

export interface StoreChanges {
  isActive?: boolean;
  isLocked?: boolean;
  lockedUntil?: number | null;
  availableLanguages?: Language[];
  defaultLanguage?: Language;
  frontendUrl?: string;
  name?: string;
  guestDiscountPercent?: number;
  loggedInDiscountPercent?: number;
}

export class StoreSettingsError extends Error {}

/** Applies operator changes to a store; refuses settings that would leave it unusable. */
export async function changeStore(db: Kysely<Database>, code: StoreCode, changes: StoreChanges): Promise<StoreSettings> {
  const current = await findStore(db, code);
  if (!current) throw new StoreSettingsError(`Unknown store ${code}`);
  const settings = toSettings(current);
  const languages = changes.availableLanguages ?? settings.availableLanguages;
  if (languages.length === 0) throw new StoreSettingsError('A store needs at least one language');
  let defaultLanguage = changes.defaultLanguage ?? settings.defaultLanguage;
  if (!languages.includes(defaultLanguage)) {
    if (changes.defaultLanguage) {
      throw new StoreSettingsError(`Default language ${defaultLanguage} is not among ${languages.join(',')}`);
    }
    defaultLanguage = languages[0]!;
  }
  await updateStore(db, code, {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.isActive !== undefined && { is_active: changes.isActive }),
    ...(changes.isLocked !== undefined && { is_locked: changes.isLocked }),
    ...(changes.lockedUntil !== undefined && { locked_until: changes.lockedUntil }),
    ...(changes.frontendUrl !== undefined && { frontend_url: changes.frontendUrl }),
    ...(changes.guestDiscountPercent !== undefined && { guest_discount_percent: changes.guestDiscountPercent }),
    ...(changes.loggedInDiscountPercent !== undefined && { logged_in_discount_percent: changes.loggedInDiscountPercent }),
    available_languages: languages.join(','),
    default_language: defaultLanguage,
  });
  return toSettings((await findStore(db, code))!);
}

import type { Db, DatabaseHandle } from '../../db/database.js';
import type { RequestStore } from '../../http/request-context.js';
import { ttlCache } from '../../infra/ttl-cache.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { isStoreCode, STORE_CODES, type StoreCode } from './store-codes.js';
import { findStore, listStores, preparedFindStore, updateStore, type WebStoreRow } from './store.repository.js';

// The http layer carries a request's store without knowing this module; the settings it does not
// need itself are added to its RequestStore here, so every route reads them from request.store.
declare module '../../http/request-context.js' {
  interface RequestStore {
    name: string;
    frontendUrl: string;
    currency: string;
    /** Pricing: the store's discount for guests and for logged-in retail customers, percent. */
    guestDiscountPercent: number;
    loggedInDiscountPercent: number;
  }
}

/** A web store's settings: what request.store holds on a store-scoped route. */
export interface StoreSettings extends RequestStore {
  code: StoreCode;
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

/** The stores as the request context reads them (it satisfies the http layer's StoreReader). */
export interface StoreCache {
  readonly codes: readonly StoreCode[];
  /** The store with that code; undefined for a code that is not a store's. */
  get(code: string): Promise<StoreSettings | undefined>;
  /** What get() would answer from the cache without waiting; undefined when it would have to read. */
  peek(code: string): { value: StoreSettings | undefined } | undefined;
  invalidate(): void;
}

/**
 * Store settings are read on every store-scoped request, so each process keeps them for `ttlMs`.
 * Changes made by this process are seen at once; changes by another process (the CLI, another API
 * process) within `ttlMs`. With a TTL of 0 every request reads the database.
 */
export function createStoreCache(database: DatabaseHandle, ttlMs: number): StoreCache {
  const find = preparedFindStore(database);
  const cache = ttlCache(ttlMs, async (code: StoreCode) => {
    const [row] = await find(code);
    return row && toSettings(row);
  });
  return {
    codes: STORE_CODES,
    get: async (code) => (isStoreCode(code) ? cache.get(code) : undefined),
    peek: (code) => (isStoreCode(code) ? cache.peek(code) : { value: undefined }),
    invalidate: () => cache.clear(),
  };
}

/** One store's settings read now, e.g. for a mail (no cache: jobs run in other processes too). */
export async function getStore(db: Db, code: string): Promise<StoreSettings | undefined> {
  const row = isStoreCode(code) ? await findStore(db, code) : undefined;
  return row && toSettings(row);
}

export async function getAllStores(db: Db): Promise<StoreSettings[]> {
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
export async function changeStore(db: Db, code: StoreCode, changes: StoreChanges, now: number): Promise<StoreSettings> {
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
  await updateStore(
    db,
    code,
    {
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.isActive !== undefined && { is_active: changes.isActive }),
      ...(changes.isLocked !== undefined && { is_locked: changes.isLocked }),
      ...(changes.lockedUntil !== undefined && { locked_until: changes.lockedUntil }),
      ...(changes.frontendUrl !== undefined && { frontend_url: changes.frontendUrl }),
      ...(changes.guestDiscountPercent !== undefined && { guest_discount_percent: changes.guestDiscountPercent }),
      ...(changes.loggedInDiscountPercent !== undefined && { logged_in_discount_percent: changes.loggedInDiscountPercent }),
      available_languages: languages.join(','),
      default_language: defaultLanguage,
    },
    now,
  );
  return toSettings((await findStore(db, code))!);
}

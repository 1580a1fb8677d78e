import { parseArgs } from 'node:util';
import type { Db } from '../../db/database.js';
import { isLanguage, type Language } from '../../i18n/index.js';
import { cliInstant, CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { isStoreCode } from './store-codes.js';
import { changeStore, getAllStores, type StoreChanges, type StoreSettings } from './store.service.js';

export const STORE_USAGE = `  store list                          show both web stores and their settings
  store lock <CODE> [--until <time>]  close a store for maintenance (423); --until sets Retry-After (RFC 3339)
  store unlock <CODE>                 open it again
  store set <CODE> [--active=<true|false>] [--languages=et,en,ru] [--default-language=<lang>]
                   [--name=<name>] [--frontend-url=<url>]
                   [--guest-discount=<percent>] [--logged-in-discount=<percent>]`;

/** `storefront store ...`: operators change store settings; running API processes see it within STORE_CACHE_TTL_MS. */
export async function storeCommand(db: Db, args: string[], print: (line: string) => void, clock: Clock = systemClock): Promise<void> {
  const [action, code, ...rest] = args;
  const now = clock.now();
  if (action === 'list' && code === undefined) {
    for (const store of await getAllStores(db)) print(describe(store));
    return;
  }
  if (action === undefined) throw new CliUsageError('store: give a command, list, lock, unlock or set');
  if (!['lock', 'unlock', 'set'].includes(action)) throw new CliUsageError(`unknown store command "${args.join(' ')}"`);
  if (!isStoreCode(code)) throw new CliUsageError(`store ${action}: give a store code, WEB or WEB2`);
  let changes: StoreChanges;
  if (action === 'lock') changes = { isLocked: true, lockedUntil: parseUntil(rest, now) };
  else if (action === 'unlock' && rest.length === 0) changes = { isLocked: false, lockedUntil: null };
  else if (action === 'set') changes = parseSet(rest);
  else throw new CliUsageError(`unknown store command "${[action, code, ...rest].join(' ')}"`);
  print(describe(await changeStore(db, code, changes, now)));
}

function describe(store: StoreSettings): string {
  const lock = store.isLocked ? `LOCKED${store.lockedUntil ? ` until ${new Date(store.lockedUntil).toISOString()}` : ''}` : 'open';
  return (
    `${store.code}\t${store.name}\tactive=${store.isActive}\t${lock}\tlanguages=${store.availableLanguages.join(',')}` +
    `\tdefault=${store.defaultLanguage}\t${store.frontendUrl}\tdiscounts: guest ${store.guestDiscountPercent}%, logged-in ${store.loggedInDiscountPercent}%`
  );
}

function parseUntil(args: string[], now: number): number | null {
  const { values } = parse(args, { until: { type: 'string' } });
  if (values.until === undefined) return null;
  const until = cliInstant(values.until, '--until');
  if (until <= now) throw new CliUsageError('--until must be a future time such as 2026-12-01T06:00:00Z');
  return until;
}

function parseSet(args: string[]): StoreChanges {
  const { values } = parse(args, {
    active: { type: 'string' },
    languages: { type: 'string' },
    'default-language': { type: 'string' },
    name: { type: 'string' },
    'frontend-url': { type: 'string' },
    'guest-discount': { type: 'string' },
    'logged-in-discount': { type: 'string' },
  });
  const changes: StoreChanges = {};
  if (values.active !== undefined) {
    if (values.active !== 'true' && values.active !== 'false') throw new CliUsageError('--active must be true or false');
    changes.isActive = values.active === 'true';
  }
  if (values.languages !== undefined) changes.availableLanguages = parseLanguages(values.languages);
  if (values['default-language'] !== undefined) {
    const language = values['default-language'];
    if (!isLanguage(language)) throw new CliUsageError('--default-language must be et, en or ru');
    changes.defaultLanguage = language;
  }
  if (values.name !== undefined) {
    // Shown in every mail's subject, /app/config and `store list` (a tab there splits its columns).
    if (values.name.trim() === '' || values.name.length > 100 || CONTROL.test(values.name))
      throw new CliUsageError('--name must be one line of 1 to 100 characters');
    changes.name = values.name.trim();
  }
  if (values['frontend-url'] !== undefined) changes.frontendUrl = parseFrontendUrl(values['frontend-url']);
  if (values['guest-discount'] !== undefined) changes.guestDiscountPercent = parsePercent('--guest-discount', values['guest-discount']);
  if (values['logged-in-discount'] !== undefined) {
    changes.loggedInDiscountPercent = parsePercent('--logged-in-discount', values['logged-in-discount']);
  }
  if (Object.keys(changes).length === 0) throw new CliUsageError('store set: nothing to change');
  return changes;
}

/** The most characters a front-end URL is kept with (web_store.frontend_url is varchar(500)). */
const FRONTEND_URL_MAX = 500;

/**
 * A front-end URL as a browser reads it, without its trailing slashes. Every link of the store is this
 * URL and a path after it (`<URL>/verify-email?token=…`, in mails, redirects and the sitemap): a query
 * or a fragment would come before the path and swallow it. Kept as the URL parser writes it (scheme and
 * host in lower case, an internationalised host in its xn-- form, the path percent-encoded, `\` as `/`),
 * where as typed a stray backslash (`https://shop.example\`) made every link `https://shop.example\/verify-email`,
 * which browsers open at the path `//verify-email`.
 */
function parseFrontendUrl(value: string): string {
  if (!/^https?:\/\/\S+$/i.test(value) || CONTROL.test(value) || !URL.canParse(value))
    throw new CliUsageError('--frontend-url must be an http(s) URL');
  if (/[?#]/.test(value))
    throw new CliUsageError(
      '--frontend-url must be an http(s) URL without a query (?) or a fragment (#): the paths of links are put after it',
    );
  const parsed = new URL(value);
  // Every link mailed to customers and listed for crawlers would carry them.
  if (parsed.username !== '' || parsed.password !== '')
    throw new CliUsageError(
      '--frontend-url must be an http(s) URL without a user name or password: every link of the store would show them',
    );
  const url = `${parsed.protocol}//${parsed.host}${parsed.pathname}`.replace(/\/+$/, '');
  if (url.length > FRONTEND_URL_MAX)
    throw new CliUsageError(`--frontend-url must be an http(s) URL of at most ${FRONTEND_URL_MAX} characters (percent-encoded)`);
  return url;
}

/** Control characters (Unicode's Cc), which no one-line setting takes. */
const CONTROL = /\p{Cc}/u;

/** A discount in percent, 0 to 100 with at most two decimals (what the pricing rules work with). */
function parsePercent(option: string, value: string): number {
  // No leading zeros (05): one spelling per number, as the HTTP API's (src/http/plain-numbers.ts).
  if (!/^(?:0|[1-9][0-9]{0,2})(\.[0-9]{1,2})?$/.test(value) || Number(value) > 100)
    throw new CliUsageError(`${option} must be a percentage from 0 to 100 without leading zeros, e.g. 5 or 7.5, not "${value}"`);
  return Number(value);
}

function parseLanguages(value: string): Language[] {
  const languages = value.split(',').map((language) => language.trim());
  if (languages.length === 0 || !languages.every(isLanguage)) throw new CliUsageError('--languages must list et, en and/or ru');
  return [...new Set(languages)] as Language[];
}

function parse<T extends Record<string, { type: 'string' }>>(args: string[], options: T) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (err) {
    throw new CliUsageError((err as Error).message);
  }
}

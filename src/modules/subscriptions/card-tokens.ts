import type { Logger } from '../../infra/logger.js';
import {
  createSealer,
  isSealed,
  newSealingKeyEntry,
  parseSealingKeys,
  UnsealableSecretError,
  type SealingKey,
} from '../../infra/sealed-secret.js';
import { sealingKeysFromFile } from '../../infra/sealing-key-file.js';

// A saved card's gateway token is what charges the card (merchant-initiated payments), so it is
// kept sealed (infra/sealed-secret.ts) under a key outside the database: CARD_TOKEN_KEYS, else a
// key file beside the SQLite database, made on first start. On PostgreSQL several processes on
// several machines charge cards, and a key file of each machine's own would seal with keys the
// others cannot open: there the key must be configured, and a process without it does not start.

export interface CardTokens {
  /** What is stored for a gateway's token. */
  seal(token: string): string;
  /**
   * The gateway's token of a stored one (one stored in clear before sealing began as it is); null,
   * logged for the operator, when no configured key opens it: the card cannot be charged.
   */
  open(stored: string, cardId: number): string | null;
  /** open() without the log line: for a billing run, which tells the operator once how many did not open. */
  openQuietly(stored: string): string | null;
  /** What every token sealed under the key that seals now starts with. */
  readonly currentPrefix: string;
}

const PURPOSE = 'subscription_card.token';
/** Beside the SQLite file `<file>`: `<file>.card-token-keys`. */
export const KEY_FILE_SUFFIX = '.card-token-keys';

export function createCardTokens(keys: readonly SealingKey[], log: Pick<Logger, 'error'>): CardTokens {
  const sealer = createSealer(keys, PURPOSE);
  /** The token, or why no key opens it. */
  const tryOpen = (stored: string): string | UnsealableSecretError => {
    if (!isSealed(stored)) return stored;
    try {
      return sealer.open(stored);
    } catch (error) {
      if (!(error instanceof UnsealableSecretError)) throw error;
      return error;
    }
  };
  return {
    seal: (token) => sealer.seal(token),
    open(stored, cardId) {
      const opened = tryOpen(stored);
      if (typeof opened === 'string') return opened;
      log.error(
        { cardId, keyId: opened.keyId, reason: opened.reason },
        "a saved card's token does not open with the card token keys (CARD_TOKEN_KEYS or the key file): the card is not charged",
      );
      return null;
    },
    openQuietly(stored) {
      const opened = tryOpen(stored);
      return typeof opened === 'string' ? opened : null;
    },
    currentPrefix: `v1.${sealer.sealingKeyId}.`,
  };
}

/** The keys of a process using `databaseUrl`: configured, else its SQLite file's key file; see above. */
export function cardTokenKeysFor(settings: { databaseUrl: string; cardTokenKeys: SealingKey[] | undefined }): SealingKey[] {
  if (settings.cardTokenKeys) return settings.cardTokenKeys;
  const { databaseUrl } = settings;
  if (!databaseUrl.startsWith('sqlite:'))
    throw new Error(
      "CARD_TOKEN_KEYS must be set with PostgreSQL: every API and worker process seals and opens saved cards' tokens with it, " +
        `so all of them need the same key, kept outside the database (one key: CARD_TOKEN_KEYS=${KEY_EXAMPLE}; see README, Configuration)`,
    );
  const file = databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:' || file === '') return memoryDatabaseKeys();
  return sealingKeysFromFile(`${file}${KEY_FILE_SUFFIX}`);
}

const KEY_EXAMPLE = 'k1:$(openssl rand -base64 32)';

let memoryKeys: SealingKey[] | undefined;

/** An in-memory database lives as long as its process: so does its key, one for the process. */
function memoryDatabaseKeys(): SealingKey[] {
  memoryKeys ??= (parseSealingKeys(newSealingKeyEntry('memory')) as { keys: SealingKey[] }).keys;
  return memoryKeys;
}

/** CardTokens over the keys of a process using `settings.databaseUrl` (cardTokenKeysFor); throws what it lacks. */
export function cardTokensFor(
  settings: { databaseUrl: string; cardTokenKeys: SealingKey[] | undefined },
  log: Pick<Logger, 'error'>,
): CardTokens {
  return createCardTokens(cardTokenKeysFor(settings), log);
}

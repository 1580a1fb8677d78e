import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Secrets the service must read back (a payment gateway's card token, which is sent back to charge
// the card) cannot be hashed: they are sealed with AES-256-GCM under a key kept outside the database,
// so a dump of it alone reveals none of them. A sealed value names its key,
// `v1.<keyId>.<iv>.<tag>.<ciphertext>` (base64url), so keys can be rotated: every listed key opens,
// the first one seals.

export interface SealingKey {
  /** Letters, digits and '-': it is written into every value the key seals. */
  id: string;
  /** 32 bytes. */
  key: Buffer;
}

export const SEALED_PREFIX = 'v1.';
const KEY_ID = /^[A-Za-z0-9-]{1,16}$/;
const IV_BYTES = 12;

/** Why a value could not be opened: no listed key has its id, it is not in the sealed form, or it fails authentication. */
export class UnsealableSecretError extends Error {
  constructor(
    readonly reason: 'unknown-key' | 'malformed' | 'not-authentic',
    readonly keyId: string | undefined,
  ) {
    super(`sealed value cannot be opened (${reason}${keyId === undefined ? '' : `, key ${keyId}`})`);
    this.name = 'UnsealableSecretError';
  }
}

export interface Sealer {
  /** The id of the key that seals. */
  readonly sealingKeyId: string;
  seal(plain: string): string;
  /** The plain text of a sealed value; throws UnsealableSecretError. */
  open(sealed: string): string;
}

/** Whether `value` is in the sealed form (a value stored before sealing began is not). */
export const isSealed = (value: string): boolean => value.startsWith(SEALED_PREFIX);

/**
 * A sealer over `keys` (the first seals). `purpose` is authenticated with every value, so a value
 * sealed for one purpose does not open as another's.
 */
export function createSealer(keys: readonly SealingKey[], purpose: string): Sealer {
  const [first] = keys;
  if (!first) throw new Error('a sealer needs at least one key');
  const byId = new Map(keys.map((entry) => [entry.id, entry.key]));
  const additionalData = (keyId: string) => Buffer.from(`${SEALED_PREFIX}${keyId}.${purpose}`);
  return {
    sealingKeyId: first.id,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', first.key, iv);
      cipher.setAAD(additionalData(first.id));
      const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'));
      return `${SEALED_PREFIX}${first.id}.${parts.join('.')}`;
    },
    open(sealed) {
      const [version, keyId, iv, tag, ciphertext, ...rest] = sealed.split('.');
      if (`${version}.` !== SEALED_PREFIX || keyId === undefined || ciphertext === undefined || rest.length > 0)
        throw new UnsealableSecretError('malformed', undefined);
      const key = byId.get(keyId);
      if (!key) throw new UnsealableSecretError('unknown-key', keyId);
      const ivBytes = Buffer.from(iv!, 'base64url');
      const tagBytes = Buffer.from(tag!, 'base64url');
      if (ivBytes.length !== IV_BYTES || tagBytes.length !== 16) throw new UnsealableSecretError('malformed', keyId);
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, ivBytes);
        decipher.setAAD(additionalData(keyId));
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new UnsealableSecretError('not-authentic', keyId);
      }
    },
  };
}

/**
 * Parses a key list, `<id>:<key>` entries separated by commas or line breaks (the first seals), each
 * key 32 bytes in base64 or base64url (`openssl rand -base64 32`). What is wrong is said without
 * quoting a key.
 */
export function parseSealingKeys(text: string): { keys: SealingKey[] } | { problem: string } {
  const entries = text
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return { problem: 'names no key' };
  const keys: SealingKey[] = [];
  for (const [index, entry] of entries.entries()) {
    const separator = entry.indexOf(':');
    const id = separator < 0 ? '' : entry.slice(0, separator);
    const encoded = separator < 0 ? '' : entry.slice(separator + 1);
    const which = `entry ${index + 1}`;
    if (!KEY_ID.test(id)) return { problem: `${which} must be <id>:<key> with an id of 1 to 16 letters, digits or '-'` };
    if (keys.some((other) => other.id === id)) return { problem: `${which} repeats the key id "${id}"` };
    const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
    if (key.length !== 32)
      return { problem: `${which} (key id "${id}") must be a key of 32 bytes in base64, e.g. from: openssl rand -base64 32` };
    keys.push({ id, key });
  }
  return { keys };
}

/** A new random key, as a key list entry (`<id>:<base64>`). */
export function newSealingKeyEntry(id: string): string {
  return `${id}:${randomBytes(32).toString('base64')}`;
}

import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { hmacHex, sharedSecret } from '../../infra/secrets.js';

// Gift card codes. A generated code is 16 Crockford base-32 characters (80 random bits) and a
// check character (Luhn mod 32), shown as XXXX-XXXX-XXXX-XXXX-C. The check character catches a
// mistyped character or two swapped neighbours before any look-up; it is no secret (anyone can
// compute it), so guessing is stopped by the 80 bits and the per-address limit, not by it.
//
// Codes are compared normalised: upper case, spaces and dashes dropped, and Crockford's
// look-alikes read as digits (O as 0, I and L as 1), for generated and imported codes alike. The
// database keeps only an HMAC-SHA256 of the normalised code under the server key `gift-card-code`
// (app_secret) and its last four characters: a copy of the gift card tables gives no code, and
// guessing one offline against a copy that includes the key still means 2^80 tries per card.

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_CHARS = 16;
export const GENERATED_LENGTH = RANDOM_CHARS + 1;

/** Upper case, no spaces or dashes, O as 0 and I, L as 1. */
export function normaliseCode(typed: string): string {
  return typed
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
}

function checkCharacter(body: string): string {
  let factor = 2;
  let sum = 0;
  for (let index = body.length - 1; index >= 0; index--) {
    const value = ALPHABET.indexOf(body[index]!);
    let addend = factor * value;
    factor = factor === 2 ? 1 : 2;
    addend = Math.floor(addend / 32) + (addend % 32);
    sum += addend;
  }
  return ALPHABET[(32 - (sum % 32)) % 32]!;
}

/** Whether a normalised code has the generated shape (17 base-32 characters). */
export function looksGenerated(code: string): boolean {
  return code.length === GENERATED_LENGTH && [...code].every((char) => ALPHABET.includes(char));
}

/** False for a code of the generated shape whose check character is wrong (a typo); true otherwise. */
export function checkCharacterHolds(code: string): boolean {
  if (!looksGenerated(code)) return true;
  return checkCharacter(code.slice(0, RANDOM_CHARS)) === code.slice(RANDOM_CHARS);
}

/** A new code, normalised (80 random bits and the check character). */
export function generateCode(): string {
  const bytes = randomBytes(10);
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  let body = '';
  for (let index = 0; index < RANDOM_CHARS; index++) {
    body = ALPHABET[Number(bits & 31n)]! + body;
    bits >>= 5n;
  }
  return body + checkCharacter(body);
}

/** The code as printed and mailed: groups of four, the check character last. */
export function displayCode(code: string): string {
  return looksGenerated(code) ? `${code.match(/.{4}/g)!.join('-')}-${code.slice(RANDOM_CHARS)}` : code;
}

/** How many of a code's last characters are kept to show it (the basket, the lists). */
export const HINT_LENGTH = 4;
export const codeHint = (code: string) => code.slice(-HINT_LENGTH);

export interface CodeKey {
  hmac(normalisedCode: string): string;
}

const keys = new WeakMap<object, Promise<string>>();

/** The server key codes are looked up by, made once per install and read once per process. */
export async function codeKey(db: Db, now: number): Promise<CodeKey> {
  let secret = keys.get(db);
  if (!secret) {
    secret = sharedSecret(db, 'gift-card-code', undefined, now);
    keys.set(db, secret);
    secret.catch(() => keys.delete(db));
  }
  const value = await secret;
  return { hmac: (code) => hmacHex(value, `gift-card:${code}`) };
}

import { createHash, timingSafeEqual } from 'node:crypto';
import { normaliseEmail } from './email-address.js';
import type { Algorithm } from '@node-rs/argon2';
import { createLimiter, type Limiter } from './limiter.js';
import { PasswordHashThreads } from './password-hash-threads.js';
import { DEFAULT_PASSWORD_HASH_CONCURRENCY } from './passwords.config.js';
import { dictionary } from '@zxcvbn-ts/language-common';

// argon2id with the OWASP minimum (19 MiB, 2 passes, 1 lane), computed on threads of lower priority
// (password-hash-threads.ts), so hashing never blocks the event loop nor competes with it for a core.
// Algorithm is a const enum the compiler cannot inline here (verbatimModuleSyntax): 2 is Argon2id.
const ARGON2 = { algorithm: 2 as Algorithm, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;
const LEGACY_PREFIX = 'legacy-sha512$';

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/** The 10,000 most common passwords, lower-cased (the list is ranked, most common first). */
const COMMON_PASSWORDS = new Set(dictionary.passwords.slice(0, 10_000).map((word: string) => word.toLowerCase()));

// Hashing runs on threads of its own, but they share the cores with the event loop: with as many
// hashes as cores in flight, every other request waits for CPU. So at most
// PASSWORD_HASH_CONCURRENCY hashes run at once (cores - 1 unless set, passwords.config.ts); the
// others wait in a queue, off the event loop.
// Measured in bench/: /site/health p99 under login load went from 7.6x its idle p99 to under 3x.
//
// One queue per process, not per app: every app and command in a process hashes on the same cores
// and the same threads, so two queues would let twice the setting run at once. Whoever builds a
// process's dependencies from its settings (buildApp, the CLI commands that hash) sizes it with
// setPasswordHashConcurrency; a later size holds for the hashes that start after it.
const limit = createLimiter(DEFAULT_PASSWORD_HASH_CONCURRENCY);

/** Sizes the process's password hashing queue (config.passwordHashConcurrency); waiting hashes start if it grew. */
export function setPasswordHashConcurrency(size: number): void {
  limit.resize(size);
}

/** The queue as it is now, and the most hashes that ran at once since it was last sized: for tests. */
export function passwordHashQueue(): ReturnType<Limiter['state']> {
  return limit.state();
}

const threads = new PasswordHashThreads();
const argon2Hash = (password: string) => limit(() => threads.run({ op: 'hash', password, options: ARGON2 }) as Promise<string>);
const argon2Verify = (stored: string, password: string) =>
  limit(() => threads.run({ op: 'verify', stored, password }) as Promise<boolean>).catch(() => false);

export function hashPassword(password: string): Promise<string> {
  return argon2Hash(password);
}

/** How a password from the previous system is stored until its owner's first login. */
export function legacyHashValue(sha512Hex: string): string {
  return `${LEGACY_PREFIX}${sha512Hex.toLowerCase()}`;
}

export interface PasswordCheck {
  ok: boolean;
  /** The stored hash is a legacy or weaker one and should be replaced with a fresh argon2id hash. */
  rehash: boolean;
}

// A real hash of a random password, verified when there is no user or no password, so a login
// for an unknown email does the same work as one for a known email.
const DUMMY_HASH = argon2Hash(`dummy-${Math.random()}`);

/** Checks a password against a stored hash; with no hash it still spends the time and fails. */
export async function verifyPassword(stored: string | null, password: string, legacySalt: string | undefined): Promise<PasswordCheck> {
  if (stored === null) {
    await argon2Verify(await DUMMY_HASH, password);
    return { ok: false, rehash: false };
  }
  if (stored.startsWith(LEGACY_PREFIX)) {
    // The legacy hash is fast; spend the argon2 time too so the answer's timing tells nothing.
    await argon2Verify(await DUMMY_HASH, password);
    if (legacySalt === undefined) return { ok: false, rehash: false };
    const expected = Buffer.from(stored.slice(LEGACY_PREFIX.length), 'hex');
    const actual = createHash('sha512').update(`${legacySalt}-${password}-`).digest();
    const ok = expected.length === actual.length && timingSafeEqual(expected, actual);
    return { ok, rehash: ok };
  }
  const ok = await argon2Verify(stored, password);
  return { ok, rehash: false };
}

export type PasswordProblem = 'tooShort' | 'tooLong' | 'common' | 'sameAsEmail';

/** Length 8 to 128, no composition rules; not one of the most common passwords; not the email. */
export function passwordProblem(password: string, email: string | null): PasswordProblem | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'tooShort';
  if (length > PASSWORD_MAX_LENGTH) return 'tooLong';
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return 'common';
  if (email !== null && lower === normaliseEmail(email)) return 'sameAsEmail';
  return undefined;
}

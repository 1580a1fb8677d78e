import { availableParallelism } from 'node:os';
import type { EnvReader } from './env.js';

// PASSWORD_HASH_CONCURRENCY, the size of the password hashing queue (passwords.ts). Its own file, as
// the other sections' are, so that reading the environment does not load argon2 and the password list.

/** Cores − 1 (at least one, at most the setting's maximum): the event loop keeps a core for itself. */
export const DEFAULT_PASSWORD_HASH_CONCURRENCY = Math.min(64, Math.max(1, availableParallelism() - 1));

/** How many password hashes a process computes at once; the others wait in a queue. */
export function readPasswordHashConcurrency(env: EnvReader): number {
  return env.integer('PASSWORD_HASH_CONCURRENCY', DEFAULT_PASSWORD_HASH_CONCURRENCY, 1, 64);
}

import type { Worker } from 'node:worker_threads';
import { verify } from '@node-rs/argon2';
import { describe, expect, it } from 'vitest';
import { PasswordHashThreads } from '../../src/infra/password-hash-threads.js';
import { startedSince, threadNiceness } from '../helpers/thread-niceness.js';

// The threads that compute password hashes (infra/password-hash-threads.ts): the same hashes as
// @node-rs/argon2 itself, one thread per hash running at once and kept for the next, and on Linux
// a nice value above the event loop's, read from /proc (observed, never timed).

const OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** The threads kept for the next hash: private, reached here only to end one as a crash would. */
const idleThreads = (threads: PasswordHashThreads) => (threads as unknown as { idle: Worker[] }).idle;

/** `promise`, or a rejection after `ms`: a hash that waits for a dead thread fails the test instead of hanging it. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe('the password hashing threads', () => {
  it('hash and verify as argon2 does, and a bad stored hash is an error, not a crash', async () => {
    const threads = new PasswordHashThreads();
    const encoded = (await threads.run({ op: 'hash', password: 'correct horse 1', options: OPTIONS })) as string;
    expect(encoded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verify(encoded, 'correct horse 1')).toBe(true);
    expect(await threads.run({ op: 'verify', stored: encoded, password: 'correct horse 1' })).toBe(true);
    expect(await threads.run({ op: 'verify', stored: encoded, password: 'correct horse 2' })).toBe(false);
    await expect(threads.run({ op: 'verify', stored: 'not a hash', password: 'x' })).rejects.toThrow();
    // The thread that answered with an error still answers.
    expect(await threads.run({ op: 'verify', stored: encoded, password: 'correct horse 1' })).toBe(true);
  });

  it.skipIf(process.platform !== 'linux')('start a thread per hash running at once, keep it for the next, at nice 10', async () => {
    const threads = new PasswordHashThreads();
    const before = threadNiceness();
    const hashes = ['one-password-1', 'two-password-2'].map((password) => threads.run({ op: 'hash', password, options: OPTIONS }));
    await Promise.all(hashes);
    // Each Worker is one thread of the process; both hashes ran on one of their own, at nice 10.
    expect(startedSince(before).filter((nice) => nice === 10)).toHaveLength(2);

    const kept = threadNiceness();
    await threads.run({ op: 'hash', password: 'three-password-3', options: OPTIONS });
    await threads.run({ op: 'verify', stored: (await hashes[0]) as string, password: 'one-password-1' });
    expect([...threadNiceness().keys()].filter((tid) => !kept.has(tid))).toEqual([]);
  });

  it('settle a hash whose thread ends under it, and drop a thread that ends while idle, so the next hash answers', async () => {
    const threads = new PasswordHashThreads();
    await threads.run({ op: 'hash', password: 'first-password-1', options: OPTIONS });
    const [hashing] = idleThreads(threads);
    const cut = threads.run({ op: 'hash', password: 'second-password-2', options: OPTIONS });
    await hashing!.terminate();
    await expect(within(cut, 5000)).rejects.toThrow(/exited/);
    expect(await within(threads.run({ op: 'hash', password: 'third-password-3', options: OPTIONS }), 5000)).toMatch(/^\$argon2id\$/);

    const [idle] = idleThreads(threads);
    await idle!.terminate();
    expect(await within(threads.run({ op: 'hash', password: 'fourth-password-4', options: OPTIONS }), 5000)).toMatch(/^\$argon2id\$/);

    // A thread's error while idle (as Node reports one) is no uncaught error, and the thread is not used again.
    const [failing] = idleThreads(threads);
    expect(() => failing!.emit('error', new Error('lost its thread'))).not.toThrow();
    expect(idleThreads(threads)).not.toContain(failing);
    await failing!.terminate();
  });
});

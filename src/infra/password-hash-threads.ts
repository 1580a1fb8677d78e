import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { LOWER_OWN_PRIORITY_SOURCE } from './thread-priority.js';

// Password hashes (argon2id, about 10 ms of CPU each) on threads of their own at a lower priority.
// On libuv's thread pool they ran at the event loop's priority, so on a core shared with the event
// loop a request that arrived mid-hash waited for the scheduler's next turn: `/site/health` under 20
// logging-in clients had a p99 of 7 ms against 1.7 ms alone (bench/RESULTS.md, core section). At
// nice 10 the event loop takes the core whenever it has work and the hashes get the rest; a login
// takes longer only while the process is busy with other requests. passwords.ts's queue bounds how
// many hashes run at once; each running one has a thread here (started on first need, then kept).

/** The threads' nice value (Linux), as the SQLite read pool's (db/sqlite-read-pool.ts). */
const HASHER_NICENESS = 10;

export type HashRequest =
  { op: 'hash'; password: string; options: Record<string, number> } | { op: 'verify'; stored: string; password: string };
type HashAnswer = { value: string | boolean } | { error: string };

/**
 * The code of a hashing thread, as a string run with `eval: true` (a `.ts` file would not start
 * under Node 20; see db/sqlite-read-worker.ts): plain CommonJS that requires only @node-rs/argon2,
 * by the path the main thread resolved.
 */
const HASH_WORKER_SOURCE = String.raw`
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { hashSync, verifySync } = require(workerData.argon2);

${LOWER_OWN_PRIORITY_SOURCE}

parentPort.on('message', (request) => {
  try {
    const value = request.op === 'hash' ? hashSync(request.password, request.options) : verifySync(request.stored, request.password);
    parentPort.postMessage({ value });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

export class PasswordHashThreads {
  private readonly idle: Worker[] = [];
  private readonly workerData = {
    argon2: createRequire(import.meta.url).resolve('@node-rs/argon2'),
    niceness: HASHER_NICENESS,
  };

  /** The encoded hash of a `hash` request, whether the password matches for a `verify` one. */
  run(request: HashRequest): Promise<string | boolean> {
    const worker = this.idle.pop() ?? this.start();
    // Held while it hashes, so a command awaiting the hash does not end first; idle threads keep no process alive.
    worker.ref();
    return new Promise((resolve, reject) => {
      const settle = (answer: HashAnswer | undefined, failure?: Error) => {
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (failure) return reject(failure);
        worker.unref();
        this.idle.push(worker);
        if ('error' in answer!) reject(new Error(answer.error));
        else resolve(answer!.value);
      };
      const onMessage = (answer: HashAnswer) => settle(answer);
      // A thread that failed or exited is not reused: the next request starts another.
      const onError = (error: Error) => settle(undefined, error);
      const onExit = (code: number) => settle(undefined, new Error(`a password hashing thread exited (${code})`));
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      worker.postMessage(request);
    });
  }

  private start(): Worker {
    const worker = new Worker(HASH_WORKER_SOURCE, { eval: true, workerData: this.workerData });
    // Listened to for the thread's whole life: one that fails or exits while idle leaves the idle list
    // (the next hash would wait for it forever), and its error, with no hash's listener on, ends no process.
    const drop = () => {
      const index = this.idle.indexOf(worker);
      if (index >= 0) this.idle.splice(index, 1);
    };
    worker.on('error', drop).on('exit', drop);
    return worker;
  }
}

/**
 * Source code for a worker thread started with `eval: true` (CommonJS) that lowers the thread's own
 * priority to `workerData.niceness`, so that on a shared core the event loop gets the CPU whenever it
 * has work: Linux sets a nice value per thread, by the thread id that /proc/thread-self names.
 * Elsewhere, or where it is not allowed, the thread keeps its priority.
 */
export const LOWER_OWN_PRIORITY_SOURCE = String.raw`
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (tid > 0 && workerData.niceness > 0) require('node:os').setPriority(tid, workerData.niceness);
} catch {}
`;

import { readdirSync, readFileSync } from 'node:fs';

/** This process's threads and their nice values, by thread id (Linux: /proc/self/task). */
export function threadNiceness(): Map<number, number> {
  const threads = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // After "pid (comm) ": field 3 (state) onwards; nice is field 19.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(Number(tid), Number(fields[16]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return threads;
}

/** The nice values of the threads started since `before` was taken. */
export const startedSince = (before: Map<number, number>): number[] =>
  [...threadNiceness()].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);

import { randomBytes } from 'node:crypto';
import type { Logger } from '../logger.js';

/** A problem with one line; its message is what the operator reads next to the line number. */
export class LineError extends Error {}

/**
 * The start of a value quoted in a line's message: at most `max` UTF-16 units, never half of a
 * character (a cut emoji would leave a lone surrogate in the report, which no UTF-8 text can hold).
 */
export function excerpt(value: string, max: number): string {
  const cut = value.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * What the operator reads for a line that failed with `error`: a LineError's own words. Anything
 * else (a database's refusal, a bug) is not written for the operator: its text may quote SQL, a
 * constraint or another record's values. It is logged in full with the line's number and an id,
 * and the line's message names that id, so the log line is found from the report.
 */
export function lineFailureMessage(error: unknown, lineNumber: number, log: Logger): string {
  if (error instanceof LineError) return error.message;
  const errorId = randomBytes(6).toString('hex');
  log.error({ err: error, line: lineNumber, errorId }, 'an import line failed unexpectedly');
  return `could not be saved (unexpected error, logged as ${errorId})`;
}

import { randomBytes } from 'node:crypto';
import { translate, type MessageKey } from '../../i18n/index.js';
import { invalidField, type InvalidInputError, type MessageParams } from '../domain-error.js';
import type { Logger } from '../logger.js';

/** A problem with one line; its message is what the operator reads next to the line number. */
export class LineError extends Error {}

/**
 * A rule of operator input broken on `field` (a `/`-separated path, `blocks/0/placement`), which keeps
 * its message key and parameters. Its message is the English `/field: text` an import reports beside
 * the line's number (an import's report has no language of its own); an admin edit that takes the
 * line's object answers it as a 422 on that field in the caller's language (`asInvalidInput`).
 */
export class KeyedLineError extends LineError {
  constructor(
    readonly field: string,
    readonly messageKey: MessageKey,
    readonly params: MessageParams = {},
  ) {
    super(`/${field}: ${translate('en', messageKey, params)}`);
  }

  /** The 422 of an edit over HTTP: the field dotted, as the API's field errors name it, the message by its key. */
  asInvalidInput(): InvalidInputError {
    return invalidField(this.field.replace(/\//g, '.'), this.messageKey, this.params);
  }
}

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
 * and the line's message names that id, so the log line is found from the report. `notDone` says
 * what of the line was not done: the line as a whole, unless it was written and only a later part
 * of it (the product feed's links to later lines) failed.
 */
export function lineFailureMessage(error: unknown, lineNumber: number, log: Logger, notDone = 'could not be saved'): string {
  if (error instanceof LineError) return error.message;
  const errorId = logUnexpected(log, error, { line: lineNumber }, 'an import line failed unexpectedly');
  return unexpected(notDone, errorId);
}

/**
 * Where a step of no line runs: before the first line (a check of the whole file), after the last,
 * or after the import (the command line's fold of its changes into the search index).
 */
export type StepPlace = 'before the first line' | 'after the last line' | 'after the import';

/**
 * What the operator reads for a step of no line (`step`, e.g. the product feed's deactivation of
 * what it does not list, after the last line) that failed with `error`: as a line's unexpected
 * error, in words and by the id it is logged under.
 */
export function stepFailureMessage(error: unknown, step: string, log: Logger, place: StepPlace = 'after the last line'): string {
  const errorId = logUnexpected(log, error, { step }, `an import step ${place} failed unexpectedly`);
  return `${place}: ${unexpected(`${step} could not be completed`, errorId)}`;
}

const unexpected = (notDone: string, errorId: string) => `${notDone} (unexpected error, logged as ${errorId})`;

/** Logs `error` in full with `fields` under a new id, and returns the id. */
function logUnexpected(log: Logger, error: unknown, fields: Record<string, unknown>, message: string): string {
  const errorId = randomBytes(6).toString('hex');
  log.error({ err: error, ...fields, errorId }, message);
  return errorId;
}

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
 * How many lines of one import run that fail unexpectedly are logged in full, each with its stack.
 * A file whose every line meets the same refusal of the database (a constraint or trigger no rule of
 * the import foresees) logged 100,000 stack traces for 100,000 lines, one cause. Twenty, as the
 * command line shows its first 20 bad lines (BAD_LINES_SHOWN): where every line fails so, each line
 * shown has its full log line.
 */
export const UNEXPECTED_LINES_LOGGED = 20;

/** What one import run reports of its lines that fail: lineFailures. */
export interface LineFailures {
  /**
   * What the operator reads for a line that failed with `error`: a LineError's own words. Anything
   * else (a database's refusal, a bug) is not written for the operator: its text may quote SQL, a
   * constraint or another record's values. The run's first UNEXPECTED_LINES_LOGGED of them are logged
   * in full with the line's number and an id of their own, which the line's message names, so the log
   * line is found from the report; past them a line names the id of the one log line `close` writes,
   * which counts them. `notDone` says what of the line was not done: the line as a whole, unless it
   * was written and only a later part of it (the product feed's links to later lines) failed.
   */
  message(error: unknown, lineNumber: number, notDone?: string): string;
  /** Logs the line counting the unexpected errors not logged in full, when there were any: once, when the run ends. */
  close(): void;
  /** How many lines failed unexpectedly (logged in full or counted), until `close`. */
  unexpected(): number;
}

/**
 * The LineFailures of one import run, logging on `log`. A line past the first UNEXPECTED_LINES_LOGGED
 * names the id of the closing count, not the id of a logged error: its own error may be another one,
 * and a stack that is not its own would send the operator after the wrong cause. The count says how
 * many and which lines, and that the first ones are logged in full, which is where their cause is.
 */
export function lineFailures(log: Logger): LineFailures {
  let logged = 0;
  let notLogged: { errorId: string; lines: number; firstLine: number; lastLine: number } | undefined;
  return {
    unexpected: () => logged + (notLogged?.lines ?? 0),
    message(error, lineNumber, notDone = 'could not be saved') {
      if (error instanceof LineError) return error.message;
      if (logged < UNEXPECTED_LINES_LOGGED) {
        logged += 1;
        return unexpected(notDone, `logged as ${logUnexpected(log, error, { line: lineNumber }, 'an import line failed unexpectedly')}`);
      }
      notLogged ??= { errorId: newErrorId(), lines: 0, firstLine: lineNumber, lastLine: lineNumber };
      notLogged.lines += 1;
      notLogged.lastLine = lineNumber;
      return unexpected(notDone, `counted as ${notLogged.errorId}: the first ${UNEXPECTED_LINES_LOGGED} are logged in full`);
    },
    close() {
      if (notLogged === undefined) return;
      const { lines } = notLogged;
      log.error(
        notLogged,
        `${lines} more import line${lines === 1 ? '' : 's'} failed unexpectedly, not logged in full (the first ${UNEXPECTED_LINES_LOGGED} are, each under its own id)`,
      );
      notLogged = undefined;
    },
  };
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
  return `${place}: ${unexpected(`${step} could not be completed`, `logged as ${errorId}`)}`;
}

const unexpected = (notDone: string, where: string) => `${notDone} (unexpected error, ${where})`;
const newErrorId = () => randomBytes(6).toString('hex');

/** Logs `error` in full with `fields` under a new id, and returns the id. */
function logUnexpected(log: Logger, error: unknown, fields: Record<string, unknown>, message: string): string {
  const errorId = newErrorId();
  log.error({ err: error, ...fields, errorId }, message);
  return errorId;
}

/** A command line the CLI cannot run: it prints the message and the usage, and exits with 2. */
export class CliUsageError extends Error {}

/**
 * A whole number as the command line takes one: decimal digits without a leading zero (or 0 alone).
 * The HTTP API refuses 05 for 5 (src/http/plain-numbers.ts: one spelling per number); the command
 * line took `jobs retry 007` as job 7 and `--limit=010` as 10, where an operator may have pasted a
 * padded code or an octal-looking typo: refused alike, so both sides read the same numbers.
 */
export const PLAIN_WHOLE_NUMBER = /^(?:0|[1-9][0-9]*)$/;

/** An id given on the command line: a whole number from 1 that the database's keys can hold, else a usage error. */
export function cliId(raw: string | undefined, what: string): number {
  const id = Number(raw);
  if (raw === undefined || !PLAIN_WHOLE_NUMBER.test(raw) || !Number.isSafeInteger(id) || id < 1)
    throw new CliUsageError(`"${raw ?? ''}" is not ${what} (a whole number from 1, in decimal digits without leading zeros)`);
  return id;
}

/**
 * A whole number an option gives (`--urls-per-file`, `--limit`), from `min` to `max`, else a usage
 * error naming the option and the range. Only decimal digits, as the HTTP side's numbers
 * (src/http/plain-numbers.ts): Number() read "0x10" as 16, "1e3" as 1000 and " 5" or "5.0" as 5, so
 * a typo ran as a size nobody asked for.
 */
export function cliWholeNumber(raw: string, option: string, min: number, max: number): number {
  const value = Number(raw);
  if (!PLAIN_WHOLE_NUMBER.test(raw) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new CliUsageError(`${option} must be a whole number from ${min} to ${max} (decimal digits only, no leading zeros), not "${raw}"`);
  return value;
}

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/**
 * Unix ms of a moment an option gives (`store lock --until`): an RFC 3339 date-time with its zone
 * (Z or an offset), else a usage error. Date.parse read a time without a zone in the server's own
 * zone (a UTC container: hours off the shop's), a date alone as UTC midnight, took free text such as
 * "Dec 1 2099" and rolled 02-30 over to March. The import refuses a moment without a zone too
 * (catalogue-import/fields.ts dateTime): the zone is the operator's to say, not the machine's.
 */
export function cliInstant(raw: string, option: string): number {
  const parts = DATE_TIME.exec(raw);
  const ms = parts ? Date.parse(raw) : NaN;
  const [year, month, day] = parts ? [Number(parts[1]), Number(parts[2]), Number(parts[3])] : [0, 0, 0];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (
    !parts ||
    Number.isNaN(ms) ||
    calendar.getUTCFullYear() !== year ||
    calendar.getUTCMonth() !== month - 1 ||
    calendar.getUTCDate() !== day
  )
    throw new CliUsageError(
      `${option} must be a date and time with its zone, such as 2026-12-01T06:00:00Z or 2026-12-01T08:00:00+02:00, not "${raw}"`,
    );
  return ms;
}

/**
 * Runs a command whose service refuses malformed arguments with errors of `inputError`: such an
 * error is a bad argument (exit 2, with the usage, the message after `label`), as the options the
 * parser refuses are; any other error (a thing that is not there, a name that is taken) stays the
 * command's own one line of exit 1.
 */
export async function inputErrorsAsUsage<T>(
  label: string,
  inputError: abstract new (message: string) => Error,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof inputError) throw new CliUsageError(`${label}: ${error.message}`);
    throw error;
  }
}

/** A command line the CLI cannot run: it prints the message and the usage, and exits with 2. */
export class CliUsageError extends Error {}

/** An id given on the command line: a whole number from 1 that the database's keys can hold, else a usage error. */
export function cliId(raw: string | undefined, what: string): number {
  const id = Number(raw);
  if (raw === undefined || !/^\d+$/.test(raw) || !Number.isSafeInteger(id) || id < 1)
    throw new CliUsageError(`"${raw ?? ''}" is not ${what}`);
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
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new CliUsageError(`${option} must be a whole number from ${min} to ${max} (decimal digits only), not "${raw}"`);
  return value;
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

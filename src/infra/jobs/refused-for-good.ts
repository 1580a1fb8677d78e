/**
 * A refusal that no later attempt can change and that is nobody's to mend: a mail to a mailbox that
 * does not exist. The worker ends the job at once as done, with `result` (what `jobs list` shows)
 * and the message as its last error, instead of retrying it on the backoff until it is dead: eight
 * refusals over some forty minutes, each a warning, and a dead job an operator is asked to look at
 * for a customer's typing mistake.
 */
export class RefusedForGood extends Error {
  override name = 'RefusedForGood';

  constructor(
    message: string,
    /** A few words for the job's result column (at most 100 characters). */
    readonly result: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * A failure no later attempt can mend but an operator must see: the worker keeps the job as dead at
 * once (`jobs list --status=dead`, /metrics) instead of retrying it first. A handler throws it for a
 * refusal that is the shop's to mend, as a mail to the office's own address that does not exist.
 */
export class PermanentJobFailure extends Error {
  override name = 'PermanentJobFailure';
}

/** The first of `error` and the errors it was caused by that is of `type`; undefined when none is. */
export function causeOfType<T extends Error>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth += 1) {
    if (cause instanceof type) return cause;
  }
  return undefined;
}

/**
 * `work`, with a refusal for good made a PermanentJobFailure saying `why`: for a mail whose address
 * is the shop's to mend, or whose loss an operator must see (an order's confirmation to its buyer).
 */
export async function deadIfRefused<T>(work: Promise<T>, why: string): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const refusal = causeOfType(error, RefusedForGood);
    if (refusal !== undefined) throw new PermanentJobFailure(`${why}: ${refusal.message}`, { cause: error });
    throw error;
  }
}

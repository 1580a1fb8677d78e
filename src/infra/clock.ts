/**
 * The one source of "now" (Unix ms). Routes and jobs read it once per action and hand the value to
 * services, so one action sees one time; tests inject a clock they can move.
 */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/**
 * The time to stamp what an outside party's answer changes: the clock's time once it answered, never
 * before the action's own. A call to a gateway may take seconds, and a change stamped with the action's
 * time but committed that much later falls behind the cursor of a reader of changes by time (the
 * operators' order feed, which trusts a change to commit within ORDER_FEED_SETTLE_MS of its stamp).
 */
export const answeredAt = (clock: Clock, askedAt: number): number => Math.max(askedAt, clock.now());

/** A clock a test moves by hand. */
export function fixedClock(start: number): Clock & { set(ms: number): void; advance(ms: number): void } {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

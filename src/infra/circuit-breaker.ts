import type { Clock } from './clock.js';

// Calls to an outside service that is down are paused for a while instead of being made. A call that
// meets an outage (`isOutage`) pauses calls for `pauseMs`; during the pause every call is refused at
// once (PausedError), and after it one call at a time goes (the others are still refused) until one is
// answered, which ends the pause, or meets the outage again, which starts a new one. The state is the
// process's own: with N processes the service is asked at most N times a pause while it is down.

/** A call refused because its service is known to be down; `secondsLeft` until a call may go again. */
export class PausedError extends Error {
  constructor(readonly secondsLeft: number) {
    super('calls are paused while the service is down');
    this.name = 'PausedError';
  }
}

export interface CircuitBreaker {
  /** Throws PausedError while calls are paused: to refuse before any work the call would need. */
  admit(): void;
  /** `call` unless calls are paused (PausedError); an error `isOutage` tells pauses the calls that follow. */
  run<T>(call: () => Promise<T>, isOutage: (error: unknown) => boolean): Promise<T>;
}

/** `onPause`: told the error of each call that paused the calls (one a pause while calls go one at a time), say to log it. */
export function circuitBreaker(clock: Clock, pauseMs: number, onPause?: (error: unknown) => void): CircuitBreaker {
  /** When the current pause ends; 0 while calls go freely. */
  let pausedUntil = 0;
  /** The one call after a pause is on its way: the others wait for its outcome. */
  let probing = false;

  const admit = () => {
    const now = clock.now();
    if (pausedUntil === 0) return;
    if (now < pausedUntil || probing) throw new PausedError(Math.max(1, Math.ceil((pausedUntil - now) / 1000)));
  };

  return {
    admit,
    async run(call, isOutage) {
      admit();
      const probe = pausedUntil !== 0;
      if (probe) probing = true;
      try {
        const result = await call();
        pausedUntil = 0;
        return result;
      } catch (error) {
        // Any answer but an outage shows the service up again.
        const outage = isOutage(error);
        pausedUntil = outage ? clock.now() + pauseMs : 0;
        if (outage) onPause?.(error);
        throw error;
      } finally {
        if (probe) probing = false;
      }
    },
  };
}

import { addressKey } from '../../infra/address-key.js';
import { tokenBuckets } from '../../infra/token-bucket.js';
import type { SessionActionType } from './tracking.tables.js';
import type { TrackingSection } from './tracking.config.js';

/** The same action of a session on the same product within this time is stored once. */
export const DUPLICATE_WINDOW_MS = 30_000;
const REMEMBERED_ACTIONS = 100_000;

/**
 * What stands between an anonymous client and the session_action table: a limit per client address
 * and per session, and duplicates dropped.
 *
 * Both live in this process's memory. The endpoint answers without waiting for the database (the
 * recorder writes in batches of hundreds, because a write per event costs more than the request);
 * a counter in the database (infra/rate-limit.ts) would put one upsert on one hot row in front of
 * every event, a synchronous write on SQLite and a round trip plus a row lock on PostgreSQL, i.e.
 * the very per-event write the batching avoids. In memory a client gets at most P times the limit
 * with P API processes, still thousands of rows a minute below the 70,000 in 10 s it took
 * unlimited, and a duplicate sent to another process may be stored once per process.
 */
export interface SessionActionGate {
  /** Counts an action of the address and session: 0 when allowed, else the seconds to wait (429 Retry-After). */
  admit(address: string, storeCode: string, sessionId: string, now: number): number;
  /** Whether the same action was seen within DUPLICATE_WINDOW_MS before `createdAt`; remembers this one either way. */
  isDuplicate(action: {
    storeCode: string;
    sessionId: string;
    actionType: SessionActionType;
    productCode: string;
    createdAt: number;
  }): boolean;
}

export function createSessionActionGate(limits: TrackingSection): SessionActionGate {
  const addresses = tokenBuckets(limits.perAddress);
  const sessions = tokenBuckets(limits.perSession);
  // Key -> when it was last recorded; insertion order is age order, so the oldest go first when full.
  const recent = new Map<string, number>();
  return {
    admit(address, storeCode, sessionId, now) {
      // The session's limit first, as the banner statistics' caps: a session past it (a runaway tab
      // behind an office's or a carrier's shared address) was refused after taking its address's
      // tokens, and every other session at the address was refused with it.
      return sessions.take(`${storeCode}|${sessionId}`, 1, now) || addresses.take(addressKey(address), 1, now);
    },
    isDuplicate({ storeCode, sessionId, actionType, productCode, createdAt }) {
      const key = `${storeCode}|${sessionId}|${actionType}|${productCode}`;
      const seen = recent.get(key);
      if (seen !== undefined && createdAt - seen < DUPLICATE_WINDOW_MS && createdAt >= seen) return true;
      recent.delete(key);
      if (recent.size >= REMEMBERED_ACTIONS) recent.delete(recent.keys().next().value as string);
      recent.set(key, createdAt);
      return false;
    },
  };
}

/**
 * How long a rate-limit counter is kept after its window started: pruneExpired (maintenance.ts)
 * deletes older ones, every hour on every worker. A window longer than this would lose its count
 * before it ends (a 5/7d limit would let 5 more through every day), so the settings refuse one
 * (env.ts). A file of its own: the settings are read before the database code is loaded.
 */
export const RATE_LIMIT_KEPT_MS = 86_400_000;

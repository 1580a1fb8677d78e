// The one place that converts between stored timestamps (Unix milliseconds, UTC) and the wire.

/** RFC 3339 in UTC, second precision: 2026-11-22T10:15:00Z. */
export function toRfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Unix seconds, as in the `action-time` header. */
export function toUnixSeconds(ms: number): number {
  return Math.floor(ms / 1000);
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';

// The signature of partner requests, both ways: HMAC-SHA256 over `<timestamp>.<body>` with the
// shared secret, as 64 hex digits; the timestamp is Unix seconds. Suppliers send it to us in
// `X-Signature` and `X-Timestamp`; our webhooks carry it the same way.

export const SIGNATURE_HEADER = 'x-signature';
export const TIMESTAMP_HEADER = 'x-timestamp';

/** How old a signed request may be; older ones are refused as replays. */
export const MAX_AGE_SECONDS = 300;
/** How far ahead of our clock a sender's may be. */
export const MAX_SKEW_SECONDS = 60;

export function signText(secret: string, timestamp: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The signature of a body spooled to a file, read as a stream (a feed may be tens of megabytes). */
export async function signFile(secret: string, timestamp: string, file: string): Promise<string> {
  const hmac = createHmac('sha256', secret).update(`${timestamp}.`);
  for await (const chunk of createReadStream(file)) hmac.update(chunk as Buffer);
  return hmac.digest('hex');
}

/** Whether `given` is the hex signature `expected`, compared in constant time. */
export function sameSignature(expected: string, given: string): boolean {
  if (!/^[0-9a-f]{64}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(given, 'hex'));
}

/** Why a timestamp header is refused, or undefined when it is fresh. */
export function staleTimestamp(header: string | undefined, nowMs: number): 'missing' | 'too-old' | 'in-the-future' | undefined {
  if (header === undefined || !/^\d{1,12}$/.test(header)) return 'missing';
  const age = Math.floor(nowMs / 1000) - Number(header);
  if (age > MAX_AGE_SECONDS) return 'too-old';
  if (age < -MAX_SKEW_SECONDS) return 'in-the-future';
  return undefined;
}

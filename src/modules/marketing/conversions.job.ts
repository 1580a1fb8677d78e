import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { enqueueJob } from '../../infra/jobs/queue.js';
import { PermanentJobFailure } from '../../infra/jobs/refused-for-good.js';
import type { JobHandler } from '../../infra/jobs/worker.js';
import type { ConversionsConfig } from './marketing.config.js';
import { isUserErased } from './marketing.repository.js';

export const COMPLETE_REGISTRATION_JOB = 'marketing.complete-registration';

export type CompleteRegistrationEvent = {
  /** The verification request's action-time (Unix seconds). */
  eventTime: number;
  storeCode: string;
  /** SHA-256 hex of the trimmed, lower-cased email. */
  emailSha256: string;
  /**
   * The user who registered (none in jobs queued before it was carried): an event of a person
   * erased before it was sent is not sent. The erasure ends the jobs naming the person's email, and
   * this one names only its hash.
   */
  userId?: number;
};

const TIMEOUT_MS = 10_000;

/**
 * A 4xx answer is the API's refusal of this request (a revoked or wrong access token, a pixel that
 * is not the shop's, a payload it does not take), which every later attempt gets again: 408 and 429
 * alone say "not now".
 */
const refusedForGood = (status: number): boolean => status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * The event's id, the platform's deduplication key: the same for every attempt of the job (its
 * payload), another for another registration. A retry of an attempt the platform took but whose
 * answer was lost (a timeout, a proxy's 5xx, a worker that died before recording it) is then
 * dropped there instead of counting the registration twice.
 */
export function completeRegistrationEventId(event: CompleteRegistrationEvent): string {
  return createHash('sha256').update(`CompleteRegistration|${event.storeCode}|${event.emailSha256}|${event.eventTime}`).digest('hex');
}

/** Queues the event in the caller's transaction: it is sent if and only if that commits. */
export async function queueCompleteRegistration(
  trx: Db,
  event: CompleteRegistrationEvent,
  options: { maxAttempts: number; now: number },
): Promise<void> {
  await enqueueJob(trx, { type: COMPLETE_REGISTRATION_JOB, payload: event }, options);
}

/**
 * Sends a "CompleteRegistration" event to a Conversions-API-compatible endpoint:
 * POST <CONVERSIONS_API_URL>/<pixel id>/events. Without configuration the job ends as skipped.
 * A 5xx, 408 or 429 answer, a timeout or a network error fails the attempt, so the worker retries it
 * with backoff, under the same event_id. Any other 4xx is a refusal no retry changes: the job is
 * dead at once, with the answer as its last error, for an operator to mend the setting and retry it.
 * The event of a person erased since (its first attempt, or a retry after the endpoint failed) is
 * not sent: the hash of their email is theirs, and nothing is sent about a person who is gone.
 */
export function completeRegistrationHandler(config: ConversionsConfig): JobHandler {
  return async (event: CompleteRegistrationEvent, { db, log }) => {
    if (config.url === undefined || config.pixelId === undefined || config.accessToken === undefined) {
      log.info({ job: COMPLETE_REGISTRATION_JOB }, 'conversions API not configured: event skipped');
      return 'skipped';
    }
    if (event.userId !== undefined && (await isUserErased(db, event.userId))) return 'cancelled: the person was erased';
    const url = `${config.url.replace(/\/+$/, '')}/${encodeURIComponent(config.pixelId)}/events`;
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
      body: JSON.stringify({
        access_token: config.accessToken,
        data: [
          {
            event_name: 'CompleteRegistration',
            event_time: event.eventTime,
            event_id: completeRegistrationEventId(event),
            action_source: 'website',
            user_data: { em: [event.emailSha256] },
            custom_data: { web_store: event.storeCode },
          },
        ],
      }),
    });
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      const message = `conversions API answered ${response.status}: ${detail}`;
      throw refusedForGood(response.status) ? new PermanentJobFailure(message) : new Error(message);
    }
    return 'sent';
  };
}

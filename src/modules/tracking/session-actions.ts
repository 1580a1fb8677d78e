import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { lockUnerasedClientCodes } from '../client-account-lock/index.js';
import type { SessionActionType } from './tracking.tables.js';
import { insertSessionActions, type SessionActionRow } from './session-actions.repository.js';
import { createSessionActionGate } from './session-action-gate.js';
import type { TrackingSection } from './tracking.config.js';

export type SessionAction = SessionActionRow;

/** Where the recorder reports lost rows (a pino logger fits). */
export interface RecorderLog {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface SessionActionRecorder {
  /**
   * Counts one action of a client address and session against the limits (TrackingSection): 0 when
   * it may be recorded, else the seconds until one may (Retry-After). Always 0 without limits.
   */
  admit(address: string, storeCode: string, sessionId: string, now: number): number;
  /**
   * Queues one action; never throws and never waits on the database (the caller answers a shopper).
   * With limits, the same action of a session on the same product within DUPLICATE_WINDOW_MS is dropped.
   */
  record(action: SessionAction): void;
  /** Writes whatever is queued; called on app close. */
  flush(): Promise<void>;
}

export interface RecorderOptions {
  /** How long an action may wait in the buffer before it is written. */
  intervalMs?: number;
  /** A buffer this full is written at once. */
  batchSize?: number;
  /** Beyond this many queued actions (the database is down or slow) new ones are dropped, not kept in memory. */
  maxQueued?: number;
  /** Limits per client address and session, and duplicates dropped (session-action-gate.ts); none without. */
  limits?: TrackingSection;
}

// The front-end's session token (x-session-id). Anything else is not worth a row: analytics
// tolerates a lost view, the table does not tolerate junk.
const SESSION_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const ACTION_TYPES: readonly SessionActionType[] = ['VIEW', 'ADD_TO_WISHLIST', 'ADD_TO_BASKET'];

/** The session id as it would be stored, or undefined when it is not a sane token. */
export function normaliseSessionId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return SESSION_ID.test(trimmed) ? trimmed : undefined;
}

/**
 * Writes one batch. It is written after the requests that recorded it answered, maybe after their
 * client's erasure: a client's actions are inserted under their accounts' share locks and an erased
 * client's dropped (lockUnerasedClientCodes), so an erasure either deletes them or finds them never
 * written. Without it, a view or basket add recorded as the erasure ran kept the client's code after
 * it. A batch of guests' actions alone takes no lock.
 */
async function writeBatch(db: Kysely<Database>, batch: readonly SessionAction[]): Promise<void> {
  const codes = [...new Set(batch.flatMap((action) => (action.clientCode === null ? [] : [action.clientCode])))];
  if (codes.length === 0) return insertSessionActions(db, batch);
  await db.transaction().execute(async (trx) => {
    const unerased = await lockUnerasedClientCodes(trx, codes);
    await insertSessionActions(
      trx,
      batch.filter((action) => action.clientCode === null || unerased.has(action.clientCode)),
    );
  });
}

/**
 * Buffers session actions and inserts them in batches. A product view must not wait for an
 * insert (nor fail because of one), so record() only queues; a timer or a full batch writes.
 * A failed batch is logged and dropped: these rows are analytics, not business records.
 */
export function createSessionActionRecorder(
  database: DatabaseHandle,
  log: RecorderLog,
  options: RecorderOptions = {},
): SessionActionRecorder {
  const intervalMs = options.intervalMs ?? 250;
  const batchSize = options.batchSize ?? 500;
  const maxQueued = options.maxQueued ?? 50_000;
  let queue: SessionAction[] = [];
  // Actions handed to a write that has not finished: they wait in memory as much as the queue does.
  let writingCount = 0;
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  let dropped = 0;
  const gate = options.limits && createSessionActionGate(options.limits);

  const write = (batch: SessionAction[]): Promise<void> =>
    writeBatch(database.db, batch)
      .then(
        () => undefined,
        (err: unknown) => log.error({ err, rows: batch.length }, 'session actions not recorded'),
      )
      .finally(() => {
        writingCount -= batch.length;
      });

  // Batches are written one after the other so they land in the order they were recorded.
  const drain = (): Promise<void> => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    while (queue.length > 0) {
      const batch = queue.slice(0, batchSize);
      queue = queue.slice(batch.length);
      writingCount += batch.length;
      writing = writing.then(() => write(batch));
    }
    if (dropped > 0) {
      log.warn({ dropped }, 'session actions dropped: too many waiting to be written');
      dropped = 0;
    }
    return writing;
  };

  return {
    admit: (address, storeCode, sessionId, now) => gate?.admit(address, storeCode, sessionId, now) ?? 0,
    record(action) {
      try {
        const sessionId = normaliseSessionId(action.sessionId);
        if (sessionId === undefined || !ACTION_TYPES.includes(action.actionType) || action.productCode === '') return;
        if (gate?.isDuplicate({ ...action, sessionId })) return;
        // Counted with the batches still being written: a full batch leaves the queue at once, so the
        // queue alone never reached the cap while the database took none of them.
        if (queue.length + writingCount >= maxQueued) {
          dropped += 1;
          return;
        }
        queue.push({ ...action, sessionId });
        if (queue.length >= batchSize) {
          void drain();
        } else if (timer === undefined) {
          timer = setTimeout(() => void drain(), intervalMs);
          timer.unref();
        }
      } catch (err) {
        log.error({ err }, 'session action not recorded');
      }
    },
    flush: () => drain(),
  };
}

/** What recordView reads of a request (a Fastify request fits): its method, session header, client address, store and time. */
export interface ViewRequest {
  method: string;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  ip: string;
  store: { code: string } | null;
  actionTime: number;
}

/**
 * Records that the request's shopper (the `x-session-id` header) viewed a product. Analytics
 * must never hold up or break the page: it only queues, and a missing or bad session id, or a
 * client past its limits (the same as POST /event/session-action's), records nothing. Nor does a
 * HEAD (Fastify answers it with the GET's handler): nobody saw a page, a link checker or a
 * prefetcher asked whether it is there, and its views would count in the exports and recommendations.
 */
export function recordView(recorder: SessionActionRecorder, request: ViewRequest, productCode: string, clientCode: string | null): void {
  if (request.method === 'HEAD') return;
  const sessionId = normaliseSessionId(request.headers['x-session-id']);
  if (sessionId === undefined || !request.store) return;
  if (recorder.admit(request.ip, request.store.code, sessionId, request.actionTime) > 0) return;
  recorder.record({ sessionId, storeCode: request.store.code, productCode, clientCode, actionType: 'VIEW', createdAt: request.actionTime });
}

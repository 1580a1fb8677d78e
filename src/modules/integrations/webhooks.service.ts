import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { lastPosition } from '../events/index.js';
import {
  allEndpoints,
  attemptsOf,
  deliveryExists,
  deleteEndpoint,
  deliveriesOf,
  findEndpointByName,
  findEndpointOfDelivery,
  insertEndpoint,
  requeueDeliveries,
  switchEndpointOn,
  unsentDeliveryCounts,
  type EndpointRow,
} from './webhooks.repository.js';

// Webhook endpoints as the operator manages them (`storefront webhook ...`). The signing secret is
// made here and shown once; it is stored as it is, because every request is signed with it.

/** What the command names is not there, or is taken: the command line itself was right. */
export class WebhookError extends Error {}
/** A name, URL or option that is never valid: a command line the CLI cannot run. */
export class WebhookInputError extends WebhookError {}

const NAME = /^[A-Za-z0-9][A-Za-z0-9 ._@-]{0,99}$/;
const EVENT_TYPES = /^(\*|[a-z-]+\.([a-z-]+)?)(,([a-z-]+\.([a-z-]+)?))*$/;

export interface NewEndpoint {
  name: string;
  url: string;
  eventTypes: string;
  maxAttempts: number;
  /** Deliver the events already written too (else only the ones written from now on). */
  fromStart: boolean;
}

async function existing(db: Db, name: string): Promise<EndpointRow> {
  const endpoint = await findEndpointByName(db, name);
  if (!endpoint) throw new WebhookError(`no webhook endpoint named "${name}"`);
  return endpoint;
}

/** The URL as an endpoint keeps it, when it is one requests can be sent to; else a WebhookInputError saying why not. */
function receiverUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookInputError(`"${text}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new WebhookInputError('the URL must be http(s)');
  // fetch refuses such a URL before it connects: every delivery would fail until it is dead.
  if (url.username !== '' || url.password !== '') {
    throw new WebhookInputError('the URL must not hold a user name or password (the requests are signed with the secret instead)');
  }
  // Measured as kept and sent (non-ASCII characters and quotes percent-encoded, often several times
  // longer than typed): webhook_endpoint.url is varchar(2000).
  if (url.toString().length > 2000) throw new WebhookInputError('the URL is longer than 2000 characters (as sent, percent-encoded)');
  return url;
}

/** A new endpoint; its signing secret (shown once). */
export async function addEndpoint(db: Db, input: NewEndpoint, now: number): Promise<string> {
  if (!NAME.test(input.name))
    throw new WebhookInputError('a name is 1 to 100 letters, digits, spaces or . _ @ -, starting with a letter or digit');
  const url = receiverUrl(input.url);
  if (!EVENT_TYPES.test(input.eventTypes) || input.eventTypes.length > 500) {
    throw new WebhookInputError('--events is *, or a comma-separated list of event types and prefixes (customer.,order.status-changed)');
  }
  if (!Number.isInteger(input.maxAttempts) || input.maxAttempts < 1 || input.maxAttempts > 100) {
    throw new WebhookInputError('--max-attempts is a whole number from 1 to 100');
  }
  if (await findEndpointByName(db, input.name)) throw new WebhookError(`a webhook endpoint named "${input.name}" exists already`);
  const secret = randomBytes(32).toString('base64url');
  await insertEndpoint(
    db,
    {
      name: input.name,
      url: url.toString(),
      secret,
      event_types: input.eventTypes,
      max_attempts: input.maxAttempts,
      fanned_position: input.fromStart ? 0 : await lastPosition(db),
    },
    now,
  );
  return secret;
}

export async function removeEndpoint(db: Db, name: string): Promise<void> {
  await deleteEndpoint(db, (await existing(db, name)).id);
}

/** The endpoints by name, each with how many deliveries wait to be sent and how many are dead letters. */
export async function listEndpoints(db: Db) {
  const [endpoints, unsent] = await Promise.all([allEndpoints(db), unsentDeliveryCounts(db)]);
  return endpoints.map((endpoint) => ({ ...endpoint, ...(unsent.get(endpoint.id) ?? { pending: 0, dead: 0 }) }));
}

// The dispatcher sends nothing to a switched-off endpoint, so a replay there would report deliveries
// "queued again" that never leave; the operator is told why instead, and what to do.
function refuseSwitchedOff(endpoint: EndpointRow): void {
  if (endpoint.disabled_at === null) return;
  throw new WebhookError(
    `webhook endpoint "${endpoint.name}" is switched off (webhook list says why): nothing is sent to it, so nothing was replayed; ` +
      `switch it back on first (webhook enable ${endpoint.name})`,
  );
}

/**
 * Switches an endpoint back on, keeping its id, secret and delivery log (remove and add lost them):
 * its URL (or `newUrl`, which replaces it) must be one `webhook add` accepts, else it stays off. The
 * deliveries left waiting are sent again from their first attempt (their failures were why it was
 * switched off), and the dispatcher fans out the events written meanwhile from where it stopped.
 * Dead letters stay dead until replayed. How many deliveries were queued again, and how many are dead.
 */
export async function enableEndpoint(
  db: Db,
  name: string,
  newUrl: string | undefined,
  now: number,
): Promise<{ requeued: number; dead: number }> {
  // A bad --url is a bad argument (exit 2) whatever the endpoint's state, as for add.
  const given = newUrl === undefined ? undefined : receiverUrl(newUrl);
  const endpoint = await existing(db, name);
  const notOff = () => new WebhookError(`webhook endpoint "${name}" is not switched off: nothing was changed`);
  if (endpoint.disabled_at === null) throw notOff();
  const url = given ?? keptUrlAccepted(endpoint);
  return db.transaction().execute(async (trx) => {
    // Only while still off: two operators at once switch it on once, and requeue once.
    if (!(await switchEndpointOn(trx, endpoint.id, url.toString()))) throw notOff();
    const requeued = await requeueDeliveries(trx, { endpointId: endpoint.id, status: 'pending' }, now);
    const dead = (await unsentDeliveryCounts(trx, endpoint.id)).get(endpoint.id)?.dead ?? 0;
    return { requeued, dead };
  });
}

// The URL kept is the operator's to fix, not a mistyped argument: a refusal (exit 1) saying how.
function keptUrlAccepted(endpoint: EndpointRow): URL {
  try {
    return receiverUrl(endpoint.url);
  } catch (error) {
    if (!(error instanceof WebhookInputError)) throw error;
    throw new WebhookError(
      `webhook endpoint "${endpoint.name}" stays switched off: its URL is not one webhook add accepts (${error.message}); ` +
        `give the receiver's URL for signed requests: webhook enable ${endpoint.name} --url <url>`,
    );
  }
}

/** Replays one delivery (by id) whatever its state; how many were queued (1). */
export async function replayDelivery(db: Db, id: number, now: number): Promise<number> {
  const endpoint = await findEndpointOfDelivery(db, id);
  if (!endpoint) throw noDelivery(id);
  refuseSwitchedOff(endpoint);
  const queued = await requeueDeliveries(db, { id }, now);
  if (queued === 0) throw noDelivery(id);
  return queued;
}

/** Replays an endpoint's deliveries: its dead letters, or every delivery in a range of event positions. */
export async function replayEndpoint(
  db: Db,
  name: string,
  range: { deadOnly: true } | { deadOnly: false; from: number; to: number },
  now: number,
): Promise<number> {
  const endpoint = await existing(db, name);
  refuseSwitchedOff(endpoint);
  if (range.deadOnly) return requeueDeliveries(db, { endpointId: endpoint.id, status: 'dead' }, now);
  if (range.from > range.to) throw new WebhookInputError('--from is after --to');
  return requeueDeliveries(db, { endpointId: endpoint.id, fromPosition: range.from, toPosition: range.to }, now);
}

export async function endpointDeliveries(db: Db, name: string, status: string | undefined, limit: number) {
  if (status !== undefined && !['pending', 'delivered', 'dead'].includes(status))
    throw new WebhookInputError('--status is pending, delivered or dead');
  return deliveriesOf(db, (await existing(db, name)).id, status, limit);
}

/** Every attempt of a delivery, oldest first; none yet for a delivery still waiting for its first. */
export async function deliveryAttempts(db: Db, deliveryId: number) {
  if (!(await deliveryExists(db, deliveryId))) throw noDelivery(deliveryId);
  return attemptsOf(db, deliveryId);
}

// An id that names no delivery (mistyped, or its endpoint removed) says so, where "0 deliveries
// queued again" or "No attempts." told the operator a replay or a look had worked.
const noDelivery = (id: number) => new WebhookError(`no webhook delivery #${id} (webhook deliveries <name> lists them)`);

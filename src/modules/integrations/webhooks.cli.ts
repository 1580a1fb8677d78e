import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { CliUsageError, inputErrorsAsUsage, PLAIN_WHOLE_NUMBER } from '../../infra/cli-usage.js';
import type { Clock } from '../../infra/clock.js';
import {
  addEndpoint,
  deliveryAttempts,
  enableEndpoint,
  endpointDeliveries,
  listEndpoints,
  removeEndpoint,
  replayDelivery,
  replayEndpoint,
  WebhookInputError,
} from './webhooks.service.js';

export const WEBHOOK_USAGE = `  webhook add <name> <url> [--events <types>] [--max-attempts <n>] [--from-start]
                                      an endpoint for signed event webhooks (docs/integrations.md);
                                      --events * (default) or types and prefixes: customer.,order.created;
                                      --max-attempts 10 (then a dead letter); prints its secret once
  webhook list                        endpoints, their events, deliveries waiting and dead letters (never the secrets);
                                      an endpoint switched off says when and why (nothing is sent to it)
  webhook enable <name> [--url <url>]  switches a switched-off endpoint back on, its id, secret and deliveries kept:
                                      its deliveries waiting and the events written meanwhile are sent; refused
                                      (exit 1) while its URL, or --url (which replaces it), is not one add accepts
  webhook remove <name>               the endpoint and its delivery log
  webhook deliveries <name> [--status pending|delivered|dead] [--limit <n>]
                                      the delivery log, newest first (50 by default, 1000 at most)
  webhook attempts <delivery id>      every attempt of a delivery: time, status, error
  webhook replay <delivery id>        sends a delivery again (a dead letter, or one delivered)
  webhook replay <name> --dead        sends the endpoint's dead letters again
  webhook replay <name> --from <position> --to <position>
                                      sends the endpoint's deliveries of those events again
                                      (refused for an endpoint switched off: nothing is sent to it)`;

/** The most deliveries `webhook deliveries` lists at once. */
const MAX_DELIVERIES_LISTED = 1000;

function options(args: string[], known: string[]): { positional: string[]; flags: Map<string, string | true> } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    if (!known.includes(arg)) throw new CliUsageError(`webhook: unknown option ${arg}`);
    const next = args[index + 1];
    if (arg === '--from-start' || arg === '--dead') flags.set(arg, true);
    else if (next === undefined) throw new CliUsageError(`webhook: ${arg} needs a value`);
    else {
      flags.set(arg, next);
      index += 1;
    }
  }
  return { positional, flags };
}

function integer(value: string | true | undefined, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'string' || !/^\d{1,15}$/.test(value) || !PLAIN_WHOLE_NUMBER.test(value))
    throw new CliUsageError(
      `webhook: ${name} needs a whole number (decimal digits, no leading zeros), not "${value === true ? '' : (value ?? '')}"`,
    );
  return Number(value);
}

/** `storefront webhook ...`. */
export function webhookCommand(deps: { db: Db; clock: Clock }, args: string[], print: (line: string) => void): Promise<void> {
  // A malformed name, URL or option is a bad argument; an endpoint or delivery that is not there is not.
  return inputErrorsAsUsage(`webhook ${args[0]}`, WebhookInputError, () => runWebhookCommand(deps, args, print));
}

async function runWebhookCommand({ db, clock }: { db: Db; clock: Clock }, args: string[], print: (line: string) => void): Promise<void> {
  const [action, ...rest] = args;
  const { positional, flags } = options(rest, [
    '--events',
    '--max-attempts',
    '--from-start',
    '--status',
    '--limit',
    '--dead',
    '--from',
    '--to',
    '--url',
  ]);
  if (action === 'add' && positional.length === 2) {
    const events = flags.get('--events');
    const secret = await addEndpoint(
      db,
      {
        name: positional[0]!,
        url: positional[1]!,
        eventTypes: typeof events === 'string' ? events : '*',
        maxAttempts: integer(flags.get('--max-attempts'), '--max-attempts', 10),
        fromStart: flags.has('--from-start'),
      },
      clock.now(),
    );
    print(`Webhook endpoint "${positional[0]}" added. Its signing secret (shown only now):`);
    print(secret);
    return;
  }
  if (action === 'list' && positional.length === 0) {
    const endpoints = await listEndpoints(db);
    if (endpoints.length === 0) print('No webhook endpoints.');
    for (const endpoint of endpoints) {
      const disabled =
        endpoint.disabled_at === null ? '' : `\tDISABLED ${toRfc3339(endpoint.disabled_at)}: ${endpoint.disabled_reason ?? ''}`;
      print(
        `${endpoint.name}\t${endpoint.url}${disabled}\tevents ${endpoint.event_types}\tmax attempts ${endpoint.max_attempts}\tfanned out to ${endpoint.fanned_position}\t${endpoint.pending} waiting, ${endpoint.dead} dead`,
      );
    }
    return;
  }
  if (action === 'enable' && positional.length === 1) {
    const name = positional[0]!;
    const url = flags.get('--url');
    const { requeued, dead } = await enableEndpoint(db, name, typeof url === 'string' ? url : undefined, clock.now());
    print(`Webhook endpoint "${name}" switched back on: ${requeued} deliveries waiting are sent again, then the events written meanwhile.`);
    if (dead > 0) print(`${dead} dead letters stay dead: webhook replay ${name} --dead sends them again.`);
    return;
  }
  if (action === 'remove' && positional.length === 1) {
    await removeEndpoint(db, positional[0]!);
    print(`Webhook endpoint "${positional[0]}" removed.`);
    return;
  }
  if (action === 'deliveries' && positional.length === 1) {
    const status = flags.get('--status');
    // Bounded as `jobs list --limit`: 0 answered "No deliveries." of an endpoint that has some, and a
    // limit of fifteen digits read the whole log into memory at once.
    const limit = integer(flags.get('--limit'), '--limit', 50);
    if (limit < 1 || limit > MAX_DELIVERIES_LISTED) {
      throw new CliUsageError(`webhook deliveries: --limit must be a whole number from 1 to ${MAX_DELIVERIES_LISTED}`);
    }
    const rows = await endpointDeliveries(db, positional[0]!, typeof status === 'string' ? status : undefined, limit);
    if (rows.length === 0) print('No deliveries.');
    for (const row of rows) {
      const delivered = row.delivered_at === null ? '' : `\tdelivered ${toRfc3339(row.delivered_at)}`;
      print(
        `#${row.id}\tposition ${row.position}\t${row.type}\t${row.stream}#${row.sequence}\t${row.status}\t${row.attempts} attempts${delivered}${row.last_error ? `\t${row.last_error}` : ''}`,
      );
    }
    return;
  }
  if (action === 'attempts' && positional.length === 1) {
    const rows = await deliveryAttempts(db, integer(positional[0], 'the delivery id'));
    if (rows.length === 0) print('No attempts.');
    for (const row of rows) {
      print(
        `${toRfc3339(row.created_at)}\tattempt ${row.attempt}\t${row.status_code ?? '-'}\t${row.duration_ms} ms${row.error ? `\t${row.error}` : ''}`,
      );
    }
    return;
  }
  if (action === 'replay' && positional.length === 1) {
    const target = positional[0]!;
    let count: number;
    if (flags.has('--dead')) count = await replayEndpoint(db, target, { deadOnly: true }, clock.now());
    else if (flags.has('--from') || flags.has('--to')) {
      count = await replayEndpoint(
        db,
        target,
        { deadOnly: false, from: integer(flags.get('--from'), '--from'), to: integer(flags.get('--to'), '--to') },
        clock.now(),
      );
    } else count = await replayDelivery(db, integer(target, 'the delivery id'), clock.now());
    print(`${count} deliveries queued again.`);
    return;
  }
  throw new CliUsageError('webhook: expected add, list, enable, remove, deliveries, attempts or replay (see the usage)');
}

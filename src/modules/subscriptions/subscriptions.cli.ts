import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../infra/clock.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import type { Gateways } from '../payments/index.js';
import { billDue } from './billing.service.js';
import { subscriptionStats } from './stats.service.js';

export const SUBSCRIPTION_USAGE = `  subscription bill                   charge every subscription due (renewals, retries) through its
                                      saved card, end cancelled ones; safe to run beside the worker
  subscription stats                  per month: revenue, started, trials and their conversion,
                                      churned, active at the month's end, churn rate (NDJSON)`;

/** `storefront subscription bill`: one billing run now; prints its counts as JSON. `stats`: one line a month. */
export async function subscriptionCommand(
  deps: { db: Kysely<Database>; gateways: Gateways; clock: Clock; concurrency?: number },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  if (args.length === 1 && args[0] === 'bill')
    return print(JSON.stringify(await billDue(deps.db, deps.gateways, deps.clock.now(), { concurrency: deps.concurrency })));
  if (args.length === 1 && args[0] === 'stats') {
    for (const month of await subscriptionStats(deps.db)) print(JSON.stringify(month));
    return;
  }
  throw new CliUsageError(`unknown subscription command "${args.join(' ')}"`);
}

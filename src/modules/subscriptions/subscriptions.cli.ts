import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../infra/clock.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import type { Gateways } from '../payments/index.js';
import { billDue } from './billing.service.js';
import type { CardTokens } from './card-tokens.js';
import { mismatchedPendingCharges, settleCharge, stalePendingCharges } from './pending-charges.service.js';
import { subscriptionStats } from './stats.service.js';

export const SUBSCRIPTION_USAGE = `  subscription bill                   charge every subscription due (renewals, retries) through its
                                      saved card, end cancelled ones; safe to run beside the worker
  subscription stats                  per month: revenue, started, trials and their conversion,
                                      churned, active at the month's end, churn rate (NDJSON)
  subscription charges --pending      the charges still pending after 10 minutes, oldest first, to look
                                      up in the gateway's merchant portal by order reference (NDJSON)
  subscription charges --mismatched   the pending charges whose gateway named a payment that does not pay
                                      them (another sum, currency or processing account), at once (NDJSON)
  subscription settle <orderReference> paid <paymentReference> | failed [<paymentReference>]
                                      applies what the merchant portal shows to a pending charge, as
                                      the gateway's answer would be (the payment is checked there)`;

const SETTLE_USAGE = 'subscription settle <orderReference> paid <paymentReference> | failed [<paymentReference>]';
// The only listings of charges there are: the ones an operator may have to settle by hand.
const CHARGES_USAGE =
  'subscription charges --pending (the charges still pending after 10 minutes) | --mismatched (pending, paid otherwise than asked)';
const CHARGE_LISTS = {
  '--pending': (deps: { db: Kysely<Database>; clock: Clock }) => stalePendingCharges(deps.db, deps.clock.now()),
  '--mismatched': (deps: { db: Kysely<Database> }) => mismatchedPendingCharges(deps.db),
};

/**
 * `storefront subscription bill`: one billing run now; prints its counts as JSON. `stats`: one line a month.
 * `charges --pending`, `charges --mismatched` and `settle`: the operator's way out for charges the gateway cannot settle
 * (pending-charges.service.ts).
 */
export async function subscriptionCommand(
  deps: { db: Kysely<Database>; gateways: Gateways; cardTokens: () => Promise<CardTokens>; clock: Clock; concurrency?: number },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'bill' && rest.length === 0) {
    const options = { cardTokens: await deps.cardTokens(), concurrency: deps.concurrency };
    return print(JSON.stringify(await billDue(deps.db, deps.gateways, deps.clock.now(), options)));
  }
  if (action === 'stats' && rest.length === 0) {
    for (const month of await subscriptionStats(deps.db)) print(JSON.stringify(month));
    return;
  }
  if (action === 'charges') {
    const [list, ...extra] = rest;
    if (extra.length > 0 || (list !== '--pending' && list !== '--mismatched')) throw new CliUsageError(CHARGES_USAGE);
    for await (const charge of CHARGE_LISTS[list](deps)) print(JSON.stringify(charge));
    return;
  }
  if (action === 'settle') return print(JSON.stringify(await settleCharge(deps.db, deps.gateways, settleInput(rest), deps.clock.now())));
  throw new CliUsageError(`unknown subscription command "${args.join(' ')}"`);
}

function settleInput([orderReference, finding, paymentReference, ...extra]: string[]) {
  const paid = finding === 'paid' && paymentReference !== undefined;
  if (!orderReference || extra.length > 0 || !(paid || finding === 'failed')) throw new CliUsageError(SETTLE_USAGE);
  return { orderReference, finding, paymentReference: paymentReference ?? null } as const;
}

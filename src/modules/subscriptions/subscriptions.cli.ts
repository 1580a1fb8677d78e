import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../infra/clock.js';
import type { Logger } from '../../infra/logger.js';
import { cliId, CliUsageError } from '../../infra/cli-usage.js';
import type { Gateways } from '../payments/index.js';
import { billDue } from './billing.service.js';
import type { CardTokens } from './card-tokens.js';
import { mismatchedPendingCharges, settleCharge, stalePendingCharges } from './pending-charges.service.js';
import { markRefundedByHand, refundRefusedCharges, retryRefund } from './refused-refunds.service.js';
import { subscriptionStats } from './stats.service.js';

export const SUBSCRIPTION_USAGE = `  subscription bill                   charge every subscription due (renewals, retries) through its
                                      saved card, end cancelled ones; safe to run beside the worker
  subscription stats                  per month: revenue (settled in the month less what refunds and
                                      chargebacks of the month gave back), started, trials and their
                                      conversion, churned, active at the month's end, churn rate (NDJSON)
  subscription charges --pending      the charges still pending after 10 minutes, oldest first, to look
                                      up in the gateway's merchant portal by order reference (NDJSON)
  subscription charges --mismatched   the pending charges whose gateway named a payment that does not pay
                                      them (another sum, currency or processing account), at once (NDJSON)
  subscription settle <orderReference> paid <paymentReference> | failed [<paymentReference>]
                                      applies what the merchant portal shows to a pending charge, as
                                      the gateway's answer would be (the payment is checked there)
  subscription charges --refund-refused
                                      the charges whose refund the gateway refused for good (no run
                                      tries them again), oldest first, with the refusal (NDJSON)
  subscription mark-refunded <chargeId>
                                      records such a charge refunded by hand (the gateway is not
                                      asked) and mails its customer the refund
  subscription retry-refund <chargeId>
                                      sends such a charge back to be refunded through its gateway
                                      (its refund job at once, then every billing run)`;

const SETTLE_USAGE = 'subscription settle <orderReference> paid <paymentReference> | failed [<paymentReference>]';
// The only listings of charges there are: the ones an operator may have to settle or refund by hand.
const CHARGES_USAGE =
  'subscription charges --pending (the charges still pending after 10 minutes) | --mismatched (pending, paid otherwise than asked) | --refund-refused (refunds the gateway refused for good)';
const CHARGE_LISTS: Record<string, (deps: { db: Kysely<Database>; clock: Clock }) => AsyncGenerator<object>> = {
  '--pending': (deps) => stalePendingCharges(deps.db, deps.clock.now()),
  '--mismatched': (deps) => mismatchedPendingCharges(deps.db),
  '--refund-refused': (deps) => refundRefusedCharges(deps.db),
};
/** What the operator does with a charge whose refund the gateway refused for good (refused-refunds.service.ts). */
const REFUSED_REFUND_ACTIONS = { 'mark-refunded': markRefundedByHand, 'retry-refund': retryRefund };

/**
 * `storefront subscription bill`: one billing run now; prints its counts as JSON. `stats`: one line a month.
 * `charges --pending`, `charges --mismatched` and `settle`: the operator's way out for charges the gateway cannot settle
 * (pending-charges.service.ts); `charges --refund-refused`, `mark-refunded` and `retry-refund`: for refunds it refused
 * for good (refused-refunds.service.ts).
 */
export async function subscriptionCommand(
  deps: {
    db: Kysely<Database>;
    gateways: Gateways;
    cardTokens: () => Promise<CardTokens>;
    clock: Clock;
    concurrency?: number;
    /** Where a billing run tells what it left or what was refused (stderr): made only for `bill`. */
    log?: () => Promise<Logger>;
  },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'bill' && rest.length === 0) {
    const options = { cardTokens: await deps.cardTokens(), concurrency: deps.concurrency, log: await deps.log?.() };
    return print(JSON.stringify(await billDue(deps.db, deps.gateways, deps.clock.now(), options)));
  }
  if (action === 'stats' && rest.length === 0) {
    for (const month of await subscriptionStats(deps.db)) print(JSON.stringify(month));
    return;
  }
  if (action === 'charges') {
    const [list, ...extra] = rest;
    const lines = list !== undefined && extra.length === 0 && Object.hasOwn(CHARGE_LISTS, list) ? CHARGE_LISTS[list] : undefined;
    if (!lines) throw new CliUsageError(CHARGES_USAGE);
    for await (const charge of lines(deps)) print(JSON.stringify(charge));
    return;
  }
  if (action === 'mark-refunded' || action === 'retry-refund')
    return print(JSON.stringify(await REFUSED_REFUND_ACTIONS[action](deps.db, chargeIdOf(action, rest), deps.clock.now())));
  if (action === 'settle') return print(JSON.stringify(await settleCharge(deps.db, deps.gateways, settleInput(rest), deps.clock.now())));
  throw new CliUsageError(`unknown subscription command "${args.join(' ')}"`);
}

function chargeIdOf(action: string, [raw, ...extra]: string[]): number {
  if (raw === undefined || extra.length > 0) throw new CliUsageError(`subscription ${action} <chargeId>`);
  return cliId(raw, 'a charge id');
}

function settleInput([orderReference, finding, paymentReference, ...extra]: string[]) {
  const paid = finding === 'paid' && paymentReference !== undefined;
  if (!orderReference || extra.length > 0 || !(paid || finding === 'failed')) throw new CliUsageError(SETTLE_USAGE);
  return { orderReference, finding, paymentReference: paymentReference ?? null } as const;
}

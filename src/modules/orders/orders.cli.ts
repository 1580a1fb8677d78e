import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../infra/clock.js';
import { cliId, CliUsageError } from '../../infra/cli-usage.js';
import { markPaymentRefundedByHand, refundRefusedPayments, retryPaymentRefund } from './processing/refused-refunds.js';
import { revivalRefusals } from './processing/revival-refusals.repository.js';

export const ORDER_USAGE = `  order payments --refund-refused     the payments due back (settled for an order given up) whose refund
                                      the gateway refused for good, oldest first (NDJSON); the sweep
                                      sends them no more
  order mark-refunded <paymentId>     records such a payment refunded by hand (the gateway is not
                                      asked) and mails its buyer the refund
  order retry-refund <paymentId>      hands such a payment back to the sweep, which refunds it through
                                      its gateway
  order revivals --refused            the FAILED orders the back office reported having (it may have
                                      shipped them) that could not be revived: their gift cards were
                                      spent since, or the cards they bought voided (NDJSON); the shop
                                      settles each by hand, and it leaves the list once not FAILED`;

const PAYMENTS_USAGE = 'order payments --refund-refused';
const REVIVALS_USAGE = 'order revivals --refused';
const REFUSED_REFUND_ACTIONS = { 'mark-refunded': markPaymentRefundedByHand, 'retry-refund': retryPaymentRefund };

/**
 * `storefront order ...`: the operators' way out for refunds the gateway refused (processing/refused-refunds.ts),
 * and the list of FAILED orders whose revival the back office's report was refused (revival-refusals.repository.ts).
 */
export async function orderCommand(
  deps: { db: Kysely<Database>; clock: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, ...rest] = args;
  if (action === 'payments') {
    if (rest.length !== 1 || rest[0] !== '--refund-refused') throw new CliUsageError(PAYMENTS_USAGE);
    for await (const payment of refundRefusedPayments(deps.db)) print(JSON.stringify(payment));
    return;
  }
  if (action === 'revivals') {
    if (rest.length !== 1 || rest[0] !== '--refused') throw new CliUsageError(REVIVALS_USAGE);
    for await (const order of revivalRefusals(deps.db)) print(JSON.stringify(order));
    return;
  }
  if (action === 'mark-refunded' || action === 'retry-refund') {
    const [raw, ...extra] = rest;
    if (raw === undefined || extra.length > 0) throw new CliUsageError(`order ${action} <paymentId>`);
    const paymentId = cliId(raw, 'a payment id');
    return print(JSON.stringify(await REFUSED_REFUND_ACTIONS[action](deps.db, paymentId, deps.clock.now())));
  }
  throw new CliUsageError(`unknown order command "${args.join(' ')}"`);
}

import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { cliId, CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { AccountsConfig } from './accounts.config.js';
import { approveBusinessAccount, pendingBusinessAccounts, rejectBusinessAccount } from './business-approval.service.js';

export const BUSINESS_USAGE = `  business list                       business accounts waiting for approval (BUSINESS_APPROVAL_STORES)
  business approve <account id>       mail the contact the link that confirms the account
  business reject <account id>        decline it; the account is never usable`;

export interface BusinessCommandDeps {
  db: Kysely<Database>;
  config: Pick<AccountsConfig, 'jobs' | 'accounts'>;
  clock?: Clock;
}

export async function businessCommand(deps: BusinessCommandDeps, args: string[], print: (line: string) => void): Promise<void> {
  const { db, config } = deps;
  const [action, rawId, ...rest] = args;
  if (action === 'list' && rawId === undefined) {
    const waiting = await pendingBusinessAccounts(db);
    for (const a of waiting) {
      print(`${a.id}\t${new Date(a.created_at).toISOString()}\t${a.name ?? ''}\t${a.registry_code ?? ''}\t${a.email}\t${a.store_code}`);
    }
    // Nothing printed said neither that none waits nor whether any store waits for the back office at all.
    if (waiting.length === 0) print(noneWaiting(config.accounts.businessApprovalStores));
    return;
  }
  if ((action !== 'approve' && action !== 'reject') || rest.length > 0 || rawId === undefined) {
    throw new CliUsageError('business: use list, approve <account id> or reject <account id>');
  }
  const id = cliId(rawId, 'a business account id');
  const now = (deps.clock ?? systemClock).now();
  // An account that is not there or not waiting for approval is no bad command line: its
  // BusinessDecisionError is printed alone and the command exits with 1.
  if (action === 'approve') {
    await db.transaction().execute((trx) => approveBusinessAccount(trx, config, id, now));
    print(`Approved business account ${id}: the contact is mailed a link to confirm it`);
  } else {
    await db.transaction().execute((trx) => rejectBusinessAccount(trx, id));
    print(`Rejected business account ${id}`);
  }
}

function noneWaiting(approvalStores: string[]): string {
  if (approvalStores.length === 0) {
    return 'No business account waits for approval (BUSINESS_APPROVAL_STORES is not set: registrations are mailed their confirmation link at once).';
  }
  return `No business account waits for approval (BUSINESS_APPROVAL_STORES=${approvalStores.join(',')}).`;
}

import type { Kysely } from 'kysely';
import { cliId, CliUsageError } from '../../infra/cli-usage.js';
import type { Database } from '../../db/schema.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import type { AccountsConfig } from './accounts.config.js';
import { approveWholesale, pendingWholesaleRequest, pendingWholesaleRequests, rejectWholesale } from './wholesale.service.js';

export const WHOLESALE_USAGE = `  wholesale list                      pending wholesale applications
  wholesale approve <id>              create the company and wholesale account; mail the contact
  wholesale reject <id>               decline the application with a polite mail`;

export interface WholesaleCommandDeps {
  db: Kysely<Database>;
  config: Pick<AccountsConfig, 'jobs'>;
  clock?: Clock;
}

export async function wholesaleCommand(deps: WholesaleCommandDeps, args: string[], print: (line: string) => void): Promise<void> {
  const { db, config } = deps;
  const [action, rawId, ...rest] = args;
  if (action === 'list' && rawId === undefined) {
    const waiting = await pendingWholesaleRequests(db);
    for (const r of waiting) {
      print(`${r.id}\t${new Date(r.created_at).toISOString()}\t${r.company_name}\t${r.email}\t${r.store_code}`);
    }
    if (waiting.length === 0) print('No wholesale application waits for a decision.');
    return;
  }
  if ((action !== 'approve' && action !== 'reject') || rest.length > 0 || rawId === undefined) {
    throw new CliUsageError('wholesale: use list, approve <id> or reject <id>');
  }
  const id = cliId(rawId, 'a wholesale application id');
  const now = (deps.clock ?? systemClock).now();
  // A request that is not there or not pending is no bad command line: its WholesaleDecisionError
  // is printed alone and the command exits with 1.
  const request = await pendingWholesaleRequest(db, id);
  if (action === 'approve') {
    const code = await db.transaction().execute((trx) => approveWholesale(trx, config, request, now));
    print(`Approved request ${id}: wholesale account ${code}`);
  } else {
    await db.transaction().execute((trx) => rejectWholesale(trx, config, request, now));
    print(`Rejected request ${id}`);
  }
}

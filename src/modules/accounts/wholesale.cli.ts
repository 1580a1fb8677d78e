import { CliUsageError } from '../../cli/usage.js';
import type { AccountsDeps } from './registration.service.js';
import { approveWholesale, listPendingWholesaleRequests, rejectWholesale, WholesaleDecisionError } from './wholesale.service.js';

export const WHOLESALE_USAGE = `  wholesale list                      pending wholesale applications
  wholesale approve <id>              create the company and wholesale account; mail the contact
  wholesale reject <id>               decline the application with a polite mail`;

export async function wholesaleCommand(deps: AccountsDeps, args: string[], print: (line: string) => void): Promise<void> {
  const [action, rawId, ...rest] = args;
  if (action === 'list' && rawId === undefined) {
    for (const r of await listPendingWholesaleRequests(deps)) {
      print(`${r.id}\t${new Date(r.created_at).toISOString()}\t${r.company_name}\t${r.email}\t${r.store_code}`);
    }
    return;
  }
  if ((action !== 'approve' && action !== 'reject') || rest.length > 0 || !/^\d+$/.test(rawId ?? '')) {
    throw new CliUsageError('wholesale: use list, approve <id> or reject <id>');
  }
  const id = Number(rawId);
  try {
    if (action === 'approve') print(`Approved request ${id}: wholesale account ${await approveWholesale(deps, id)}`);
    else {
      await rejectWholesale(deps, id);
      print(`Rejected request ${id}`);
    }
  } catch (error) {
    if (error instanceof WholesaleDecisionError) throw new CliUsageError(error.message);
    throw error;
  }
}

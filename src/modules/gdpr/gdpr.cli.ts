import type { Kysely } from 'kysely';
import { normaliseEmail } from '../../infra/email-address.js';
import type { Database } from '../../db/schema.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import type { Clock } from '../../infra/clock.js';
import { DomainError } from '../../infra/domain-error.js';
import { isErasedEmail } from '../../infra/personal-data.js';
import { translate } from '../../i18n/index.js';
import { eraseByEmail } from './gdpr.service.js';
import { personalDataParts } from './personal-data-parts.js';

export const GDPR_USAGE = `  gdpr erase <email> [--dry-run]      erase a person's data as DELETE /client-account does (orders kept
                                      without the person); for requests made outside the web store;
                                      --dry-run says whose data it would erase, or why it is refused, and changes nothing`;

/** `storefront gdpr erase <email>`: an operator's erasure; refused like the customer's (open orders, last master). */
export async function gdprCommand(
  deps: { db: Kysely<Database>; clock: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const dryRun = args.includes('--dry-run');
  const [action, email, ...rest] = args.filter((arg) => arg !== '--dry-run');
  if (action !== 'erase' || email === undefined || rest.length > 0 || email.trim() === '' || email.startsWith('--'))
    throw new CliUsageError('gdpr erase <email> [--dry-run]');
  // The address an erasure left on its user (copied from an order or a log) names that user: erased
  // again, the integrations were told again of a person erased already.
  const address = normaliseEmail(email);
  if (isErasedEmail(address))
    throw new Error(`${address} is the address an erasure left in place of a person's email: that person was erased already`);
  let subject;
  try {
    subject = await eraseByEmail(deps.db, personalDataParts, email, deps.clock.now(), { dryRun });
  } catch (error) {
    if (error instanceof DomainError) throw new Error(translate('en', error.messageKey, error.params));
    throw error;
  }
  if (!subject) throw new Error(`no user has the email ${address}`);
  const accounts = subject.accounts.length === 1 ? '1 client account' : `${subject.accounts.length} client accounts`;
  if (dryRun) {
    const which = subject.accounts.map((account) => `${account.storeCode} ${account.type}`).join(', ');
    print(`Would erase user ${subject.userId} (${accounts}${which ? `: ${which}` : ''}); nothing was changed (--dry-run).`);
    return;
  }
  print(`Erased user ${subject.userId} (${accounts}); it is now ${subject.erasedEmail}.`);
}

import type { Kysely } from 'kysely';
import { normaliseEmail } from '../../infra/email-address.js';
import type { Database } from '../../db/schema.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import type { Clock } from '../../infra/clock.js';
import { DomainError } from '../../infra/domain-error.js';
import { translate } from '../../i18n/index.js';
import { eraseByEmail } from './gdpr.service.js';
import { personalDataParts } from './personal-data-parts.js';

export const GDPR_USAGE = `  gdpr erase <email>                  erase a person's data as DELETE /client-account does (orders kept
                                      without the person); for requests made outside the web store`;

/** `storefront gdpr erase <email>`: an operator's erasure; refused like the customer's (open orders, last master). */
export async function gdprCommand(
  deps: { db: Kysely<Database>; clock: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, email, ...rest] = args;
  if (action !== 'erase' || email === undefined || rest.length > 0 || email.trim() === '') throw new CliUsageError('gdpr erase <email>');
  let subject;
  try {
    subject = await eraseByEmail(deps.db, personalDataParts, email, deps.clock.now());
  } catch (error) {
    if (error instanceof DomainError) throw new Error(translate('en', error.messageKey, error.params));
    throw error;
  }
  if (!subject) throw new Error(`no user has the email ${normaliseEmail(email)}`);
  print(`Erased user ${subject.userId} (${subject.accounts.length} client accounts); it is now ${subject.erasedEmail}.`);
}

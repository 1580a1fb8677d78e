import type { Db } from '../../db/database.js';
import type { Language } from '../../i18n/index.js';
import type { AccountsConfig } from './accounts.config.js';

/** Where and for whom an account service acts: the request's store and language, and the module's configuration. */
export interface AccountsContext {
  config: AccountsConfig;
  storeCode: string;
  language: Language;
}

/**
 * Called in the transaction that uses a link mailed to the login email (a password reset, a
 * verification), once the link's token is consumed: whoever followed it has proven they own the
 * mailbox. The app wires what other modules make of that (an address nobody had confirmed is now
 * confirmed, and the account is the mailbox owner's: the ways in that someone else set up go).
 * Answers whether the account was taken over, in which case every other session of it ends too.
 */
export type MailboxProven = (trx: Db, userId: number, now: number) => Promise<boolean>;

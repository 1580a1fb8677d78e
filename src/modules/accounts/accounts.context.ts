import type { Language } from '../../i18n/index.js';
import type { AccountsConfig } from './accounts.config.js';

/** Where and for whom an account service acts: the request's store and language, and the module's configuration. */
export interface AccountsContext {
  config: AccountsConfig;
  storeCode: string;
  language: Language;
}

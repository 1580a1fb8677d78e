import { translate } from '../../i18n/index.js';
import type { MessageParams } from '../../infra/domain-error.js';
import { LineError } from '../catalogue-import/index.js';
import type { ContentRuleKey } from './content.messages.js';

/**
 * A rule of operator input broken on `field` (a `/`-separated path, `blocks/0/placement`). It is a
 * LineError worded in English, `/field: message`, which is what an import reports beside the line's
 * number (an import's report has no language of its own); it keeps the key and its parameters, so
 * the admin PUT answers it as a 422 on that field in the caller's language.
 */
export class ContentRuleError extends LineError {
  constructor(
    readonly field: string,
    readonly messageKey: ContentRuleKey,
    readonly params: MessageParams = {},
  ) {
    super(`/${field}: ${translate('en', messageKey, params)}`);
  }
}

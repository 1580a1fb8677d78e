import { CliUsageError, inputErrorsAsUsage } from '../../infra/cli-usage.js';
import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { Clock } from '../../infra/clock.js';
import { ApiKeyInputError, createApiKey, listApiKeys, revokeApiKeyByName } from './api-keys.service.js';

export const API_KEY_USAGE = `  api-key add <name>                  make an operator API key for the /admin/... endpoints (imports,
                                      orders, content, product files, banner statistics);
                                      the key is printed once and cannot be shown again
  api-key list                        names, created, last used, revoked (never the keys)
  api-key revoke <name>               the key stops working at once`;

/** `storefront api-key ...`: operators manage the keys of the admin endpoints. */
export async function apiKeyCommand({ db, clock }: { db: Db; clock: Clock }, args: string[], print: (line: string) => void): Promise<void> {
  const [action, name, ...rest] = args;
  if (action === 'list' && name === undefined) {
    const keys = await listApiKeys(db);
    if (keys.length === 0) print('No API keys.');
    for (const key of keys) {
      const lastUsed = key.last_used_at === null ? 'never used' : `last used ${toRfc3339(key.last_used_at)}`;
      const revoked = key.revoked_at === null ? 'active' : `REVOKED ${toRfc3339(key.revoked_at)}`;
      print(`${key.name}\tcreated ${toRfc3339(key.created_at)}\t${lastUsed}\t${revoked}`);
    }
    return;
  }
  if ((action === 'add' || action === 'revoke') && name !== undefined && rest.length === 0) {
    if (action === 'add') {
      // A malformed name is a bad argument; a taken one is not.
      const key = await inputErrorsAsUsage('api-key add', ApiKeyInputError, () => createApiKey(db, name, clock.now()));
      print(`API key "${name}" (shown only now; keep it in a secret store):`);
      print(key);
    } else {
      print(`API key "${name}": ${await revokeApiKeyByName(db, name, clock.now())}.`);
    }
    return;
  }
  throw new CliUsageError(`api-key: expected add <name>, list or revoke <name>`);
}

import { parseArgs } from 'node:util';
import { CliUsageError } from '../../infra/cli-usage.js';
import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import type { Clock } from '../../infra/clock.js';
import {
  addExportUser,
  ExportUserError,
  ExportUserRefusal,
  exportUsers,
  removeExportUser,
  rotateExportUser,
  setExportUserCidrs,
  setExportUserDisabled,
} from './export-user.service.js';

export const EXPORT_USER_USAGE = `  export-user add <name> [--allow-ip <cidr>]...
                                      create a data-export user (HTTP Basic); prints its generated
                                      password once; --allow-ip limits it to networks (IPv4/IPv6)
  export-user list                    show export users, their state and allowlists
  export-user rotate <name>           replace the password with a new generated one (printed once)
  export-user disable <name>          refuse the user (403) until enabled again; enable <name> undoes it
  export-user allow <name> [--allow-ip <cidr>]...
                                      replace the allowlist (none: any address)
  export-user remove <name>           delete the user`;

/** `storefront export-user ...`: operators manage the analytics partner's credentials. */
export async function exportUserCommand(
  { db, clock }: { db: Db; clock: Clock },
  args: string[],
  print: (line: string) => void,
): Promise<void> {
  const [action, ...rest] = args;
  try {
    switch (action) {
      case 'list': {
        if (rest.length > 0) throw new CliUsageError('export-user list takes no arguments');
        const users = await exportUsers(db);
        if (users.length === 0) print('No export users.');
        for (const user of users) {
          const ips = user.allowedCidrs.length === 0 ? 'any address' : user.allowedCidrs.join(',');
          print(`${user.name}\t${user.disabled ? 'DISABLED' : 'enabled'}\t${ips}\tcreated ${toRfc3339(user.createdAt)}`);
        }
        return;
      }
      case 'add': {
        const { name, cidrs } = nameAndCidrs(rest, 'add');
        const { password } = await addExportUser(db, name, cidrs, clock.now());
        print(`Export user "${name}" created. Password (shown only now; store it safely):`);
        print(password);
        return;
      }
      case 'rotate': {
        const name = onlyName(rest, 'rotate');
        const { password } = await rotateExportUser(db, name, clock.now());
        print(`New password of "${name}" (shown only now; the old one no longer works):`);
        print(password);
        return;
      }
      case 'disable':
      case 'enable': {
        const name = onlyName(rest, action);
        await setExportUserDisabled(db, name, action === 'disable', clock.now());
        print(`Export user "${name}" ${action}d.`);
        return;
      }
      case 'allow': {
        const { name, cidrs } = nameAndCidrs(rest, 'allow');
        await setExportUserCidrs(db, name, cidrs, clock.now());
        print(`Export user "${name}" allowed from ${cidrs.length === 0 ? 'any address' : cidrs.join(', ')}.`);
        return;
      }
      case 'remove': {
        const name = onlyName(rest, 'remove');
        await removeExportUser(db, name);
        print(`Export user "${name}" removed.`);
        return;
      }
      default:
        throw new CliUsageError(`unknown export-user command "${args.join(' ')}"`);
    }
  } catch (error) {
    if (error instanceof ExportUserError) throw new CliUsageError(`export-user ${action}: ${error.message}`);
    // The command line is right, what it names is not there (or is taken): the message alone, exit 1.
    if (error instanceof ExportUserRefusal) throw new Error(`export-user ${action}: ${error.message}`);
    throw error;
  }
}

function onlyName(args: string[], action: string): string {
  if (args.length !== 1 || args[0]!.startsWith('-')) throw new CliUsageError(`export-user ${action} <name>`);
  return args[0]!;
}

function nameAndCidrs(args: string[], action: string): { name: string; cidrs: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { 'allow-ip': { type: 'string', multiple: true } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(`export-user ${action}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed.positionals.length !== 1) throw new CliUsageError(`export-user ${action} <name> [--allow-ip <cidr>]...`);
  return { name: parsed.positionals[0]!, cidrs: parsed.values['allow-ip'] ?? [] };
}

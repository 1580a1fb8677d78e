import { parseArgs } from 'node:util';
import type { Db } from '../../db/database.js';
import { CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { isEmailAddress } from '../../infra/email-address.js';
import { isStoreCode } from '../store/index.js';
import { findStoreContact, updateStoreContact, type StoreContact } from './contact.repository.js';

export const CONTACT_USAGE = `  contact show <CODE>                 the store's office contact data (GET /contact) and where contact mails go
  contact set <CODE> [--company=<name>] [--email=<address>] [--phone=<phone>] [--address=<address>]
                                      change it; an empty value clears a field (office mails then go to BACKOFFICE_EMAILS)`;

const LIMITS = { company: 200, email: 254, phone: 50, address: 500 } as const;

/** `storefront contact ...`: operators keep the store's office contact data. */
export async function contactCommand(db: Db, args: string[], print: (line: string) => void, clock: Clock = systemClock): Promise<void> {
  const [action, code, ...rest] = args;
  if (!isStoreCode(code)) throw new CliUsageError(`contact ${action ?? ''}: give a store code, WEB or WEB2`);
  if (action === 'set') {
    await updateStoreContact(db, code, parseSet(rest), clock.now());
  } else if (action !== 'show' || rest.length > 0) {
    throw new CliUsageError(`unknown contact command "${args.join(' ')}"`);
  }
  const contact = await findStoreContact(db, code);
  print(
    `${code}\tcompany=${contact.companyName ?? ''}\temail=${contact.email ?? ''}\tphone=${contact.phone ?? ''}\taddress=${contact.address ?? ''}`,
  );
}

function parseSet(args: string[]): Partial<StoreContact> {
  let values: Partial<Record<keyof typeof LIMITS, string>>;
  try {
    ({ values } = parseArgs({
      args,
      options: { company: { type: 'string' }, email: { type: 'string' }, phone: { type: 'string' }, address: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliUsageError(`contact set: ${(error as Error).message}`);
  }
  const field = (name: keyof typeof LIMITS): string | null | undefined => {
    const value = values[name];
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    if (trimmed.length > LIMITS[name] || [...trimmed].some((char) => char.charCodeAt(0) < 32 || char.charCodeAt(0) === 127)) {
      throw new CliUsageError(`--${name} must be one line of at most ${LIMITS[name]} characters`);
    }
    return trimmed === '' ? null : trimmed;
  };
  const email = field('email');
  if (email != null && !isEmailAddress(email)) throw new CliUsageError('--email must be an email address');
  const changes = { companyName: field('company'), email, phone: field('phone'), address: field('address') };
  if (Object.values(changes).every((value) => value === undefined))
    throw new CliUsageError('contact set: give at least one field to change');
  return changes;
}

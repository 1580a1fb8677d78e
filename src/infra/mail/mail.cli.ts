import { parseArgs } from 'node:util';
import type { Db } from '../../db/database.js';
import type { Clock } from '../clock.js';
import { CliUsageError } from '../cli-usage.js';
import { bounceSecret, judgeBounce } from './bounces.js';
import type { MailConfig } from './mail.config.js';
import { rememberRefused } from './refused-addresses.js';

export const MAIL_USAGE = `  mail bounce [--to=<address>]        read a bounce from standard input (the mail server's pipe to
                                      MAIL_BOUNCE_ADDRESS) and keep the recipient whose mailbox does not
                                      exist as refused; anything else is ignored (exit 0 either way)`;

/** A bounce is a few KB; a mail server piping something huge here is not sending one. */
const MAX_MESSAGE_BYTES = 1_000_000;

export interface MailCommandDeps {
  db: Db;
  clock: Clock;
  mail: Pick<MailConfig, 'bounceAddress' | 'bounceSecret'>;
  /** Postfix's local delivery to a command sets ORIGINAL_RECIPIENT: where the bounce was sent. */
  env: { ORIGINAL_RECIPIENT?: string; RECIPIENT?: string };
  stdin: AsyncIterable<Buffer | string> | undefined;
}

/** `storefront mail bounce`: what a late bounce says, kept (infra/mail/bounces.ts). */
export async function mailCommand(deps: MailCommandDeps, args: string[], print: (line: string) => void): Promise<void> {
  const [action, ...rest] = args;
  if (action !== 'bounce') throw new CliUsageError(`unknown mail command "${args.join(' ')}"`);
  let values: { to?: string };
  try {
    ({ values } = parseArgs({ args: rest, options: { to: { type: 'string' } }, strict: true }));
  } catch (err) {
    throw new CliUsageError(`mail bounce: ${err instanceof Error ? err.message : String(err)}`);
  }
  const bounceAddress = deps.mail.bounceAddress;
  if (bounceAddress === undefined)
    throw new CliUsageError('mail bounce: MAIL_BOUNCE_ADDRESS is not set, so no mail was sent with a tagged bounce address');
  if (deps.stdin === undefined) throw new CliUsageError('mail bounce: give the bounce on standard input');
  const raw = await readLimited(deps.stdin);
  if (raw === undefined) {
    print(`ignored: over ${MAX_MESSAGE_BYTES} bytes, not a bounce`);
    return;
  }
  const now = deps.clock.now();
  const verdict = judgeBounce(raw, {
    bounceAddress,
    secret: await bounceSecret(deps.db, deps.mail.bounceSecret, now),
    sentTo: [values.to, deps.env.ORIGINAL_RECIPIENT, deps.env.RECIPIENT],
  });
  if (verdict.kind === 'ignored') {
    print(`ignored: ${verdict.reason}`);
    return;
  }
  await rememberRefused(deps.db, verdict.addresses, now, true);
  // The address is a person's: the count, not the address, goes to the mail server's log.
  print(`refused: ${verdict.addresses.length} address(es) kept as refused`);
}

async function readLimited(stdin: AsyncIterable<Buffer | string>): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > MAX_MESSAGE_BYTES) return undefined;
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

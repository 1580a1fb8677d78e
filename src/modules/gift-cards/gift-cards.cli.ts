import type { Db } from '../../db/database.js';
import { cliId, CliUsageError } from '../../infra/cli-usage.js';
import { systemClock, type Clock } from '../../infra/clock.js';
import { isEmailAddress, normaliseEmail } from '../../infra/email-address.js';
import { redeliverCard } from './gift-cards.jobs.js';

export const GIFT_CARD_USAGE = `  gift-card redeliver <id> <email>    sends a virtual gift card that has not been delivered to another address (its
                                      recipient's did not exist: the buyer was mailed, the job is dead and names the id),
                                      on its delivery date or now; prints the card's id, address and delivery time`;

/** `storefront gift-card ...`: operators send a bought card where its buyer says. */
export async function giftCardCommand(db: Db, args: string[], print: (line: string) => void, clock: Clock = systemClock): Promise<void> {
  const [action, idText, email, ...rest] = args;
  if (action !== 'redeliver' || rest.length > 0) throw new CliUsageError(`unknown gift-card command "${args.join(' ')}"`);
  if (idText === undefined || email === undefined) throw new CliUsageError("gift-card redeliver: give the card's id and the address");
  const id = cliId(idText, "a gift card's id");
  const address = (email ?? '').trim();
  if (!isEmailAddress(address)) {
    throw new CliUsageError('gift-card redeliver: the address must be an email address');
  }
  const outcome = await redeliverCard(db, id, normaliseEmail(address), clock.now());
  if ('refused' in outcome) throw new Error(`gift card ${id}: ${outcome.refused}; nothing sent`);
  print(JSON.stringify(outcome));
}

import type { Db } from '../../db/database.js';
import { hmacHex, sameHmacHex, sharedSecret } from '../../infra/secrets.js';

// The card page's way back: /subscription-credit-card/return?cardId=N&checksum=<HMAC of N>. Card ids
// count up, so without the checksum anyone could ask, card by card, whether each was saved and (by
// the front-end it redirects to) in which store. The gateway sends the shopper's browser back with
// the whole link; nobody else has it.

const SECRET_NAME = 'card-return';

export interface CardReturnLinks {
  url(cardId: number): string;
  /** Whether `checksum` is the one of `cardId` (compared in constant time). */
  verify(cardId: number, checksum: unknown): boolean;
}

/** The return links of the API at `api`, signed with the secret the service made (at `now`, when first) and keeps (app_secret). */
export async function cardReturnLinks(db: Db, api: string, now: number): Promise<CardReturnLinks> {
  const secret = await sharedSecret(db, SECRET_NAME, undefined, now);
  const of = (cardId: number) => hmacHex(secret, `card-return:${cardId}`);
  return {
    url: (cardId) => `${api}/subscription-credit-card/return?cardId=${cardId}&checksum=${of(cardId)}`,
    verify: (cardId, checksum) => sameHmacHex(of(cardId), checksum),
  };
}

/**
 * The return links, made at the first request that needs them, at its action time (the secret needs the
 * database, which is not read while the routes register), and made again after a failed read.
 */
export function lazyCardReturnLinks(db: Db, api: string): (now: number) => Promise<CardReturnLinks> {
  let links: Promise<CardReturnLinks> | undefined;
  return (now) => {
    links ??= cardReturnLinks(db, api, now);
    links.catch(() => (links = undefined));
    return links;
  };
}

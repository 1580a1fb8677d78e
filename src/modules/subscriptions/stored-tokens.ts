import type { Db } from '../../db/database.js';
import type { CardTokens } from './card-tokens.js';
import { cardsWithOtherTokens, replaceToken } from './cards.repository.js';

// Tokens stored before sealing began are in clear, and tokens sealed before a key rotation are under
// a key listed after the first: each billing run (the worker's, at its start and then hourly, and
// `subscription bill`) first seals them under the key that seals now, a page at a time. A migration
// could not: the key is not in the database. Until then they are read as they are (CardTokens.open).

const PAGE = 500;

/** Seals every stored token not sealed under the first key; answers how many it sealed. Safe beside another run. */
export async function sealStoredTokens(db: Db, cardTokens: CardTokens): Promise<number> {
  let sealed = 0;
  for (let afterId = 0; ;) {
    const page = await cardsWithOtherTokens(db, cardTokens.currentPrefix, afterId, PAGE);
    for (const card of page) {
      // One no configured key opens stays as it is: a key left out of the list may come back. Not logged
      // card by card every run: the run warns once with the count of renewals it held back (billing.service.ts).
      const token = cardTokens.openQuietly(card.token!);
      // Conditional on the value read: a card confirmed or re-sealed meanwhile keeps what it has now.
      if (token !== null && (await replaceToken(db, Number(card.id), card.token!, cardTokens.seal(token)))) sealed += 1;
    }
    if (page.length < PAGE) return sealed;
    afterId = Number(page.at(-1)!.id);
  }
}

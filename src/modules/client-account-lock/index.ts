// The client account's row lock that the erasure and every writer of a client's personal data take
// first (the lock order, and why a writer refuses an erased account: client-account-lock.repository.ts).
// A module of its own because basket, orders, profile, wishlist, back-in-stock and subscriptions all
// take it, and accounts (the table's owner) imports basket.
export {
  lockAccountsForErasure,
  lockClientAccountIfLive,
  lockErasedClientCodes,
  lockClientAccountsOfUser,
  lockLiveClientAccount,
  lockUnerasedClientCodes,
} from './client-account-lock.repository.js';

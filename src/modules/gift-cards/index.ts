// The gift cards' public surface: the routes, the import kind, tables and messages; what the
// basket uses to price and keep a basket's cards; what checkout and the order state machine call
// in their own transactions to hold, take and give back an order's part of its cards.
export { giftCardsRoutes, type GiftCardsDeps } from './gift-cards.routes.js';
export type { GiftCardsSection } from './gift-cards.config.js';
export { giftCardsKind } from './gift-cards.import.js';
export type * from './gift-cards.tables.js';
export { giftCardsMessages } from './gift-cards.messages.js';
export { giftCardsPersonalData } from './gift-cards.personal-data.js';
export { GiftCardCode } from './gift-cards.schemas.js';
export {
  addCardToBasket,
  CardBalanceChangedError,
  clearBasketCards,
  holdForOrder,
  lookUpCard,
  cardLookupKey,
  removeCardFromBasket,
  shareOverCards,
  type CardShare,
} from './gift-cards.service.js';
export { moveBasketGiftCards } from './basket-merge.js';
export { MAX_BASKET_CARDS } from './gift-cards.service.js';
export { preparedBasketCards, recordSeenBalances, type BasketCardsReader } from './gift-cards.repository.js';
export { capturedCents, expireCards, hasReleasedHolds } from './gift-card-ledger.js';
export {
  boughtCardsValue,
  restoreBoughtCards,
  takenOffBoughtCards,
  takeOffBoughtCards,
  type BoughtCardsValue,
} from './bought-card-refunds.js';
export {
  VirtualGiftCardInput,
  checkVirtualCard,
  clearVirtualCardLines,
  deliveryDays,
  onOrderGivenUp,
  onOrderPaid,
  recordPurchases,
  saveVirtualCardLine,
  virtualCardLines,
  virtualCardRange,
  voidedBoughtCards,
  type VirtualCardLine,
} from './virtual-cards.js';
export { GIFT_CARD_ISSUE_JOB, GIFT_CARD_MAIL_JOB, giftCardIssueHandler, giftCardMailHandler } from './gift-cards.jobs.js';

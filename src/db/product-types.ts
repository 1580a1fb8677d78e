/**
 * Every kind of product the shop sells: the one list. The column type, the wire schemas, the
 * import's line format and pricing all derive from it, so a new type is added here only.
 */
export const PRODUCT_TYPES = [
  'BOOK',
  'EBOOK',
  'AUDIOBOOK',
  'GIFT_CARD',
  'VIRTUAL_GIFT_CARD',
  'OFFICE_EQUIPMENT',
  'TECH',
  'MUSIC',
  'MOVIE',
  'GAME',
  'USED_BOOK',
] as const;

export type ProductTypeCode = (typeof PRODUCT_TYPES)[number];

// Which order lines are downloads: those processing grants an entitlement (order_entitlement, what
// the downloads module lists and serves) and the purchase history offers to download. A line is
// digital when nothing is shipped for it (basket-rules' isDigitalProduct at checkout: e-books,
// audiobooks, anything sent as a download, virtual gift cards); of those, a gift card is money,
// issued and mailed to its recipient, never a file of the buyer's. Migration
// 2026_12_01_0900_revoke_gift_card_entitlements applies the same rule to the rows granted before.

const GIFT_CARD_TYPES: ReadonlySet<string> = new Set(['GIFT_CARD', 'VIRTUAL_GIFT_CARD']);

/** Whether the line bought a gift card (money, not a product to read or rate). */
export function isGiftCardLine(line: { product_type: string }): boolean {
  return GIFT_CARD_TYPES.has(line.product_type);
}

export function isDownloadLine(line: { product_type: string; is_digital: number | boolean }): boolean {
  return Boolean(line.is_digital) && !isGiftCardLine(line);
}

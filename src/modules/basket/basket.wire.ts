import { formatEuros, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { toWireMoney } from '../pricing/index.js';
import { needsDelivery, type LineNotice, type PricedBasket, type PricedLine } from './basket-pricing.js';
import type { BasketWire } from './basket.schemas.js';
import type { VirtualCardLine } from '../gift-cards/index.js';

/** The basket's version as the wire and the ETag carry it: its id and write count. */
export const basketVersion = (basket: { id: number; version: number }) => `${basket.id}-${basket.version}`;

function noticeText(notice: LineNotice, unitCents: number, language: Language): string {
  switch (notice.code) {
    case 'UNAVAILABLE':
      return translate(language, 'basket.notice.UNAVAILABLE');
    case 'QUANTITY_CUT':
      return translate(language, 'basket.notice.QUANTITY_CUT', { max: notice.max });
    case 'PRICE_CHANGED':
      return translate(language, 'basket.notice.PRICE_CHANGED', {
        from: formatEuros(notice.fromCents, language),
        to: formatEuros(unitCents, language),
      });
  }
}

type BasketItemWire = BasketWire['items'][number];

function toItem(line: PricedLine, language: Language): BasketItemWire {
  const item: BasketItemWire = {
    productId: line.product.id,
    code: line.product.code,
    name: line.product.name,
    type: line.product.type,
    imageUrl: line.product.imageUrl,
    quantity: line.quantity,
    unitPrice: toWireMoney(line.price.priceCents),
    strikeThroughPrice: line.price.strikeThroughCents === null ? null : toWireMoney(line.price.strikeThroughCents),
    lineTotal: toWireMoney(line.available ? line.totalCents : 0),
    available: line.available,
    availability: line.product.availability,
    deliveryTime: line.product.deliveryTime,
    maxQuantity: line.maxQuantity,
    notice: line.notice && { code: line.notice.code, message: noticeText(line.notice, line.price.priceCents, language) },
  };
  // Added, not spread into the literal: V8 builds a literal with a spread on its slow path, for every line.
  if (line.virtualCard) item.giftCard = giftCardWire(line.virtualCard);
  return item;
}

/** A virtual gift card line's details as the basket answers them (and the person's data exports them). */
export function giftCardWire(card: VirtualCardLine) {
  return {
    amount: toWireMoney(card.amountCents),
    recipientName: card.recipientName,
    recipientEmail: card.recipientEmail,
    message: card.message,
    senderName: card.senderName,
    deliveryDate: card.deliverOn,
  };
}

/** The basket answer in the caller's language; `token` is a guest's basket token. */
export function toBasketWire(priced: PricedBasket, token: string | null, language: Language): BasketWire {
  const { basket, code } = priced;
  return {
    id: basket?.id ?? null,
    version: basket ? basketVersion(basket) : null,
    basketToken: token,
    itemCount: priced.itemCount,
    items: priced.lines.map((line) => toItem(line, language)),
    subtotal: toWireMoney(priced.subtotalCents),
    discounts: code
      ? [
          {
            code: code.code.code,
            amount: toWireMoney(code.amountCents),
            applied: code.applied,
            reason: code.reason && {
              code: code.reason,
              message: translate(language, `basket.code.${code.reason}` as MessageKey, {
                min: formatEuros(code.code.minBasketCents ?? 0, language),
              }),
            },
          },
        ]
      : [],
    discountAmount: toWireMoney(priced.discountCents),
    deliveryRequired: needsDelivery(priced),
    deliveryMethod: chosenDeliveryWire(priced),
    deliveryCost: toWireMoney(priced.deliveryCents),
    total: toWireMoney(priced.totalCents),
    vat: priced.vat.map((row) => ({ rate: row.ratePercent, net: toWireMoney(row.netCents), vat: toWireMoney(row.vatCents) })),
    vatIncluded: priced.vatIncluded,
    giftCards: priced.giftCards.map((card) => ({
      code: card.hint,
      amount: toWireMoney(card.amountCents),
      balance: toWireMoney(card.balanceCents),
      usable: card.usable,
    })),
    giftCardAmount: toWireMoney(priced.giftCardCents),
    toPay: toWireMoney(priced.toPayCents),
    currency: 'EUR',
  };
}

/** The delivery chosen on the basket (null: none; `available: false`: no longer offered, e.g. its method switched off or no longer priced in the store). */
export function chosenDeliveryWire({ delivery }: Pick<PricedBasket, 'delivery'>) {
  return (
    delivery && {
      id: delivery.method.id,
      code: delivery.method.code,
      kind: delivery.method.kind,
      name: delivery.method.name,
      available: delivery.offered,
      parcelMachine: delivery.parcelMachine,
      shop: delivery.shop && { code: delivery.shop.code, name: delivery.shop.name },
      countryCode: delivery.countryCode,
    }
  );
}

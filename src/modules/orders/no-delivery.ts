// An order with nothing to ship (a basket of digital items only: e-books, audiobooks, downloads,
// virtual gift cards) names no delivery method. Its delivery columns say so in the shape every
// reader already takes (the order's wire, the back office's document, the sales history's
// `deliveryMethod`): id 0, code and kind NONE, the name in the order's language, nothing charged.
export const NO_DELIVERY = { id: 0, code: 'NONE', kind: 'NONE', nameKey: 'checkout.noDelivery' } as const;

export const isWithoutDelivery = (order: { delivery_kind: string }): boolean => order.delivery_kind === NO_DELIVERY.kind;

// The catalogue's messages: what is not found, and the names shown for anonymous reviewers.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'catalogue.productNotFound': 'There is no product {id} in this store.',
  'catalogue.categoryNotFound': 'There is no category {id} in this store.',
  'catalogue.personNotFound': 'There is no person {id}.',
  'catalogue.publisherNotFound': 'There is no publisher {id}.',
  'catalogue.seriesNotFound': 'There is no series {id}.',
  'catalogue.campaignNotFound': 'There is no campaign {id} in this store.',
  'catalogue.productListNotFound': 'There is no product list {id} in this store.',
  'catalogue.commentNotFound': 'There is no comment {id} of yours on this product.',
  'catalogue.loginRequired': 'Log in to do this.',
  'catalogue.shopNotFound': 'There is no shop {code}.',
  'catalogue.anonymous': 'Anonymous',
};

const et: Record<keyof typeof en, string> = {
  'catalogue.productNotFound': 'Selles poes ei ole toodet {id}.',
  'catalogue.categoryNotFound': 'Selles poes ei ole kategooriat {id}.',
  'catalogue.personNotFound': 'Isikut {id} ei ole.',
  'catalogue.publisherNotFound': 'Kirjastust {id} ei ole.',
  'catalogue.seriesNotFound': 'Sarja {id} ei ole.',
  'catalogue.campaignNotFound': 'Selles poes ei ole kampaaniat {id}.',
  'catalogue.productListNotFound': 'Selles poes ei ole tootenimekirja {id}.',
  'catalogue.commentNotFound': 'Sellel tootel ei ole teie kommentaari {id}.',
  'catalogue.loginRequired': 'Selleks logige sisse.',
  'catalogue.shopNotFound': 'Kauplust {code} ei ole.',
  'catalogue.anonymous': 'Anonüümne',
};

const ru: Record<keyof typeof en, string> = {
  'catalogue.productNotFound': 'В этом магазине нет товара {id}.',
  'catalogue.categoryNotFound': 'В этом магазине нет категории {id}.',
  'catalogue.personNotFound': 'Нет персоны {id}.',
  'catalogue.publisherNotFound': 'Нет издательства {id}.',
  'catalogue.seriesNotFound': 'Нет серии {id}.',
  'catalogue.campaignNotFound': 'В этом магазине нет кампании {id}.',
  'catalogue.productListNotFound': 'В этом магазине нет списка товаров {id}.',
  'catalogue.commentNotFound': 'У этого товара нет вашего комментария {id}.',
  'catalogue.loginRequired': 'Для этого войдите в систему.',
  'catalogue.shopNotFound': 'Нет магазина {code}.',
  'catalogue.anonymous': 'Аноним',
};

export const catalogueMessages = { en, et, ru };

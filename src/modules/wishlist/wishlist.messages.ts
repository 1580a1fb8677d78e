// The wishlist's messages. English is the reference; every language has every key (the types make
// a missing one a compile error).

const en = {
  'wishlist.loginRequired': 'Log in to use the wishlist.',
  'wishlist.unknownProduct': 'There is no product {id} in this store.',
  'wishlist.full': 'The wishlist holds at most {max} products.',
};

const et: Record<keyof typeof en, string> = {
  'wishlist.loginRequired': 'Soovinimekirja kasutamiseks logige sisse.',
  'wishlist.unknownProduct': 'Selles poes ei ole toodet {id}.',
  'wishlist.full': 'Soovinimekirjas saab olla kuni {max} toodet.',
};

const ru: Record<keyof typeof en, string> = {
  'wishlist.loginRequired': 'Войдите, чтобы пользоваться списком желаний.',
  'wishlist.unknownProduct': 'В этом магазине нет товара {id}.',
  'wishlist.full': 'В списке желаний может быть не более {max} товаров.',
};

export const wishlistMessages = { en, et, ru };

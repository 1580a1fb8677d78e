// The wishlist's messages: answers and the wishlist offer mail. English is the reference; every
// language has every key (the types make a missing one a compile error).

const en = {
  'wishlist.loginRequired': 'Log in to use the wishlist.',
  'wishlist.unknownProduct': 'There is no product {id} in this store.',
  'wishlist.full': 'The wishlist holds at most {max} products.',
  'wishlist.offers.subject': 'Lower prices on your wishlist – {store}',
  'wishlist.offers.body': 'Products on your wishlist in {store} cost you less now:',
  'wishlist.offers.item': '{product}: now {new} (was {old}) – {url}',
  'wishlist.offers.wishlist': 'Your whole wishlist: {url}',
  'wishlist.offers.stop':
    'You get these mails because you turned on wishlist offers. To stop them, turn them off in your notification preferences: {url}',
};

const et: Record<keyof typeof en, string> = {
  'wishlist.loginRequired': 'Soovinimekirja kasutamiseks logige sisse.',
  'wishlist.unknownProduct': 'Selles poes ei ole toodet {id}.',
  'wishlist.full': 'Soovinimekirjas saab olla kuni {max} toodet.',
  'wishlist.offers.subject': 'Teie soovinimekirja tooted on odavamad – {store}',
  'wishlist.offers.body': 'Teie soovinimekirja tooted poes {store} on teile nüüd odavamad:',
  'wishlist.offers.item': '{product}: nüüd {new} (enne {old}) – {url}',
  'wishlist.offers.wishlist': 'Kogu soovinimekiri: {url}',
  'wishlist.offers.stop':
    'Saate neid kirju, sest lülitasite sisse soovinimekirja pakkumised. Nende lõpetamiseks lülitage need välja oma teavituste eelistustes: {url}',
};

const ru: Record<keyof typeof en, string> = {
  'wishlist.loginRequired': 'Войдите, чтобы пользоваться списком желаний.',
  'wishlist.unknownProduct': 'В этом магазине нет товара {id}.',
  'wishlist.full': 'В списке желаний может быть не более {max} товаров.',
  'wishlist.offers.subject': 'Цены в вашем списке желаний снизились – {store}',
  'wishlist.offers.body': 'Товары из вашего списка желаний в магазине {store} теперь стоят для вас меньше:',
  'wishlist.offers.item': '{product}: теперь {new} (было {old}) – {url}',
  'wishlist.offers.wishlist': 'Весь список желаний: {url}',
  'wishlist.offers.stop':
    'Вы получаете эти письма, потому что включили предложения по списку желаний. Чтобы их больше не получать, отключите их в настройках уведомлений: {url}',
};

export const wishlistMessages = { en, et, ru };

// The gift cards' messages. English is the reference; every language has every key.

const en = {
  'giftCards.unknownCode': 'No gift card with this code can be used.',
  'giftCards.notInBasket': 'This gift card is not on the basket.',
  'giftCards.tooMany': 'A basket takes at most {max} gift cards.',
  'giftCards.balanceChanged': 'The balance of gift card …{hint} changed; look at the basket again.',
  'giftCards.nothingLeft': 'Gift card …{hint} has nothing left to pay with; take it off the basket.',
};

const et: Record<keyof typeof en, string> = {
  'giftCards.unknownCode': 'Selle koodiga kinkekaarti ei saa kasutada.',
  'giftCards.notInBasket': 'Seda kinkekaarti ei ole ostukorvis.',
  'giftCards.tooMany': 'Ostukorvis saab olla kuni {max} kinkekaarti.',
  'giftCards.balanceChanged': 'Kinkekaardi …{hint} jääk muutus; vaadake ostukorvi uuesti.',
  'giftCards.nothingLeft': 'Kinkekaardil …{hint} ei ole enam raha; eemaldage see ostukorvist.',
};

const ru: Record<keyof typeof en, string> = {
  'giftCards.unknownCode': 'Подарочную карту с этим кодом использовать нельзя.',
  'giftCards.notInBasket': 'Этой подарочной карты нет в корзине.',
  'giftCards.tooMany': 'В корзине может быть не более {max} подарочных карт.',
  'giftCards.balanceChanged': 'Баланс подарочной карты …{hint} изменился; проверьте корзину ещё раз.',
  'giftCards.nothingLeft': 'На подарочной карте …{hint} не осталось средств; уберите её из корзины.',
};

export const giftCardsMessages = { en, et, ru };

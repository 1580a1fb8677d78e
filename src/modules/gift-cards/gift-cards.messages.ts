// The gift cards' messages. English is the reference; every language has every key.

const en = {
  'giftCards.unknownCode': 'No gift card with this code can be used.',
  'giftCards.notInBasket': 'This gift card is not on the basket.',
  'giftCards.tooMany': 'A basket takes at most {max} gift cards.',
  'giftCards.balanceChanged': 'The balance of gift card …{hint} changed; look at the basket again.',
  'giftCards.nothingLeft': 'Gift card …{hint} has nothing left to pay with; take it off the basket.',
  'giftCards.amountRange': 'A gift card is for {min} to {max}, in whole cents.',
  'giftCards.deliveryDate': 'The delivery date is a day from {from} to {to}.',
  'giftCards.detailsRequired': 'A virtual gift card needs its amount, recipient and delivery date (giftCard).',
  'giftCards.detailsNotWanted': 'Only a virtual gift card takes gift card details.',
  'giftCards.loginRequired': 'Log in to see your gift cards.',
  'giftCards.mail.recipientSubject': 'A gift card of {amount} from {store}',
  'giftCards.mail.recipientIntro': 'Hello {name}, you have received a gift card of {amount} from {store}.',
  'giftCards.mail.recipientSubjectFrom': '{sender} sent you a gift card of {amount}',
  'giftCards.mail.recipientIntroFrom': 'Hello {name}, {sender} has sent you a gift card of {amount} for {store}.',
  'giftCards.mail.recipientIntroUnnamed': 'Hello, you have received a gift card of {amount} from {store}.',
  'giftCards.mail.recipientIntroFromUnnamed': 'Hello, {sender} has sent you a gift card of {amount} for {store}.',
  'giftCards.mail.code': 'Your gift card code: {code}',
  'giftCards.mail.expires': 'The card is valid until {expires}.',
  'giftCards.mail.buyerSubject': 'Your gift card of {amount} for {name}',
  'giftCards.mail.buyerIntro': 'Thank you! Your gift card of {amount} for {name} will be mailed to them on {date}.',
  'giftCards.mail.undeliverableSubject': 'Your gift card of {amount} for {name} could not be delivered',
  'giftCards.mail.undeliverableIntro':
    'The mail server of {email} says that the address does not exist, so your gift card of {amount} for {name} has not been delivered.',
  'giftCards.mail.undeliverableNext':
    'The card is kept for them and its value is safe. Reply to this mail or contact {store} with the right address, and we will send it there.',
  'giftCards.mail.undeliverableErasedSubject': 'Your gift card of {amount} could not be delivered',
  'giftCards.mail.undeliverableErasedIntro':
    'Your gift card of {amount} has not been delivered: the address you gave for it can no longer be used.',
};

const et: Record<keyof typeof en, string> = {
  'giftCards.unknownCode': 'Selle koodiga kinkekaarti ei saa kasutada.',
  'giftCards.notInBasket': 'Seda kinkekaarti ei ole ostukorvis.',
  'giftCards.tooMany': 'Ostukorvis saab olla kuni {max} kinkekaarti.',
  'giftCards.balanceChanged': 'Kinkekaardi …{hint} jääk muutus; vaadake ostukorvi uuesti.',
  'giftCards.nothingLeft': 'Kinkekaardil …{hint} ei ole enam raha; eemaldage see ostukorvist.',
  'giftCards.amountRange': 'Kinkekaardi summa on {min} kuni {max}, täissentides.',
  'giftCards.deliveryDate': 'Saatmise kuupäev on vahemikus {from} kuni {to}.',
  'giftCards.detailsRequired': 'Virtuaalsel kinkekaardil on vaja summat, saajat ja saatmise kuupäeva (giftCard).',
  'giftCards.detailsNotWanted': 'Kinkekaardi andmed sobivad ainult virtuaalsele kinkekaardile.',
  'giftCards.loginRequired': 'Kinkekaartide nägemiseks logige sisse.',
  'giftCards.mail.recipientSubject': 'Kinkekaart {amount} poelt {store}',
  'giftCards.mail.recipientIntro': 'Tere, {name}! Te saite poelt {store} kinkekaardi väärtusega {amount}.',
  'giftCards.mail.recipientSubjectFrom': '{sender} saatis teile kinkekaardi {amount}',
  'giftCards.mail.recipientIntroFrom': 'Tere, {name}! {sender} saatis teile poe {store} kinkekaardi väärtusega {amount}.',
  'giftCards.mail.recipientIntroUnnamed': 'Tere! Te saite poelt {store} kinkekaardi väärtusega {amount}.',
  'giftCards.mail.recipientIntroFromUnnamed': 'Tere! {sender} saatis teile poe {store} kinkekaardi väärtusega {amount}.',
  'giftCards.mail.code': 'Teie kinkekaardi kood: {code}',
  'giftCards.mail.expires': 'Kaart kehtib kuni {expires}.',
  'giftCards.mail.buyerSubject': 'Teie kinkekaart {amount} saajale {name}',
  'giftCards.mail.buyerIntro': 'Aitäh! Teie kinkekaart väärtusega {amount} saadetakse saajale {name} {date}.',
  'giftCards.mail.undeliverableSubject': 'Teie kinkekaarti {amount} saajale {name} ei õnnestunud kätte toimetada',
  'giftCards.mail.undeliverableIntro':
    'Aadressi {email} postiserveri teatel sellist aadressi ei ole, seega ei jõudnud teie kinkekaart väärtusega {amount} saajani {name}.',
  'giftCards.mail.undeliverableNext':
    'Kaart on alles ja selle väärtus on tallel. Vastake sellele kirjale või kirjutage poele {store} õige aadress ning saadame kaardi sinna.',
  'giftCards.mail.undeliverableErasedSubject': 'Teie kinkekaarti {amount} ei õnnestunud kätte toimetada',
  'giftCards.mail.undeliverableErasedIntro':
    'Teie kinkekaart väärtusega {amount} jäi saatmata: selle jaoks antud aadressi ei saa enam kasutada.',
};

const ru: Record<keyof typeof en, string> = {
  'giftCards.unknownCode': 'Подарочную карту с этим кодом использовать нельзя.',
  'giftCards.notInBasket': 'Этой подарочной карты нет в корзине.',
  'giftCards.tooMany': 'В корзине может быть не более {max} подарочных карт.',
  'giftCards.balanceChanged': 'Баланс подарочной карты …{hint} изменился; проверьте корзину ещё раз.',
  'giftCards.nothingLeft': 'На подарочной карте …{hint} не осталось средств; уберите её из корзины.',
  'giftCards.amountRange': 'Сумма подарочной карты от {min} до {max}, в целых центах.',
  'giftCards.deliveryDate': 'Дата отправки — день с {from} по {to}.',
  'giftCards.detailsRequired': 'Для виртуальной подарочной карты нужны сумма, получатель и дата отправки (giftCard).',
  'giftCards.detailsNotWanted': 'Данные подарочной карты подходят только для виртуальной подарочной карты.',
  'giftCards.loginRequired': 'Войдите, чтобы увидеть свои подарочные карты.',
  'giftCards.mail.recipientSubject': 'Подарочная карта на {amount} от {store}',
  'giftCards.mail.recipientIntro': 'Здравствуйте, {name}! Вы получили подарочную карту на {amount} от {store}.',
  'giftCards.mail.recipientSubjectFrom': '{sender} отправил(а) вам подарочную карту на {amount}',
  'giftCards.mail.recipientIntroFrom': 'Здравствуйте, {name}! {sender} отправил(а) вам подарочную карту {store} на {amount}.',
  'giftCards.mail.recipientIntroUnnamed': 'Здравствуйте! Вы получили подарочную карту на {amount} от {store}.',
  'giftCards.mail.recipientIntroFromUnnamed': 'Здравствуйте! {sender} отправил(а) вам подарочную карту {store} на {amount}.',
  'giftCards.mail.code': 'Код вашей подарочной карты: {code}',
  'giftCards.mail.expires': 'Карта действительна до {expires}.',
  'giftCards.mail.buyerSubject': 'Ваша подарочная карта на {amount} для {name}',
  'giftCards.mail.buyerIntro': 'Спасибо! Ваша подарочная карта на {amount} будет отправлена получателю {name} {date}.',
  'giftCards.mail.undeliverableSubject': 'Не удалось доставить вашу подарочную карту на {amount} для {name}',
  'giftCards.mail.undeliverableIntro':
    'Почтовый сервер адреса {email} сообщает, что такого адреса не существует, поэтому ваша подарочная карта на {amount} для {name} не доставлена.',
  'giftCards.mail.undeliverableNext':
    'Карта сохранена, её стоимость не потеряна. Ответьте на это письмо или сообщите магазину {store} правильный адрес, и мы отправим карту туда.',
  'giftCards.mail.undeliverableErasedSubject': 'Не удалось доставить вашу подарочную карту на {amount}',
  'giftCards.mail.undeliverableErasedIntro':
    'Ваша подарочная карта на {amount} не доставлена: указанный для неё адрес больше нельзя использовать.',
};

export const giftCardsMessages = { en, et, ru };

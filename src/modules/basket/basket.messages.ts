// The basket's messages: line notices, discount-code reasons, rule violations.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'basket.badToken': 'The basket-token header is not a basket token.',
  'basket.versionMismatch': 'The basket has changed since version {version}; read it again and retry.',
  'basket.unknownProduct': 'There is no product {id} in this store.',
  'basket.unavailable': 'This product cannot be ordered now.',
  'basket.digitalOne': 'A digital product can be in the basket once only.',
  'basket.quantityMax': 'At most {max} of one product.',
  'basket.stockLimit': 'Only {stock} in stock.',
  'basket.tooManyLines': 'A basket holds at most {max} different products.',
  'basket.mergeLinesLeftOut':
    '{count} products from the basket you had before logging in did not fit (a basket holds at most {max}); they stay in that basket.',
  'basket.mergeQuantityCapped':
    'Products in both baskets whose quantities came to more than {max} together: {count}; a basket holds at most {max} of one product, so they were cut to {max}.',
  'basket.mergeDigitalOnce':
    'Digital products in both baskets: {count}; a digital product can be in the basket once only, so each is there once.',
  'basket.mergeGiftCardsLeftOut':
    '{count} gift cards from the basket you had before logging in did not fit (a basket takes at most {max}); they stay in that basket.',
  'basket.notInBasket': 'Product {id} is not in the basket.',
  'basket.unknownCode': 'There is no such discount code.',
  'basket.notice.UNAVAILABLE': 'No longer available; not counted in the total.',
  'basket.notice.QUANTITY_CUT': 'Only {max} can be ordered; the quantity was cut.',
  'basket.notice.PRICE_CHANGED': 'The price changed from {from} to {to}.',
  'basket.code.INACTIVE': 'The code is no longer valid.',
  'basket.code.NOT_YET_VALID': 'The code is not valid yet.',
  'basket.code.EXPIRED': 'The code has expired.',
  'basket.code.USED_UP': 'The code has been used up.',
  'basket.code.OTHER_STORE': 'The code is not valid in this store.',
  'basket.code.CUSTOMER_KIND': 'The code is not for your kind of account.',
  'basket.code.BELOW_MINIMUM': 'The code needs a basket of at least {min}.',
  'basket.code.NO_ELIGIBLE_ITEMS': 'No product in the basket is covered by the code.',
  'basket.code.OTHER_DISCOUNT_LARGER': 'The products already carry a larger discount.',
  'basket.code.OTHER_DISCOUNT_PARTLY':
    'Some products already carry a discount of their own; the code never adds to it, so it takes off only what goes beyond it.',
  'basket.code.DELIVERY_NOT_COVERED': 'The code makes only parcel-machine delivery free; choose a parcel machine to use it.',
  'basket.code.DELIVERY_FREE_ANYWAY': 'Delivery to this parcel machine is free for this basket without the code.',
  'basket.unknownDeliveryMethod': 'There is no delivery method {id} in this store.',
  'basket.deliveryNotOffered': 'This delivery method cannot carry this basket.',
  'basket.deliveryMethodWithdrawn': 'Delivery method {name} is not available now; choose another.',
  'basket.parcelMachineRequired': 'Choose a parcel machine.',
  'basket.unknownParcelMachine': 'There is no such parcel machine for this delivery method.',
  'basket.shopRequired': 'Choose a shop.',
  'basket.unknownShop': 'This shop is not a pickup point of this delivery method.',
  'basket.countryRequired': 'Choose a country.',
  'basket.countryNotServed': 'This delivery method does not deliver to {country}.',
};

const et: Record<keyof typeof en, string> = {
  'basket.badToken': 'Päis basket-token ei ole ostukorvi tunnus.',
  'basket.versionMismatch': 'Ostukorv on pärast versiooni {version} muutunud; loe see uuesti ja proovi siis uuesti.',
  'basket.unknownProduct': 'Selles poes ei ole toodet {id}.',
  'basket.unavailable': 'Seda toodet ei saa praegu tellida.',
  'basket.digitalOne': 'Digitaalset toodet saab korvi panna ainult ühe.',
  'basket.quantityMax': 'Ühte toodet kuni {max} tk.',
  'basket.stockLimit': 'Laos on ainult {stock} tk.',
  'basket.tooManyLines': 'Ostukorvis saab olla kuni {max} erinevat toodet.',
  'basket.mergeLinesLeftOut':
    'Enne sisselogimist korvis olnud toodetest {count} ei mahtunud korvi (korvis saab olla kuni {max} toodet); need jäid sinna korvi.',
  'basket.mergeQuantityCapped':
    'Mõlemas korvis olnud tooteid, mille kogus oli kokku üle {max} tk: {count}; ühte toodet saab korvis olla kuni {max} tk, seega vähendati kogus {max} tk-ni.',
  'basket.mergeDigitalOnce':
    'Mõlemas korvis olnud digitaalseid tooteid: {count}; digitaalset toodet saab korvi panna ainult ühe, seega on igaüks korvis üks kord.',
  'basket.mergeGiftCardsLeftOut':
    'Enne sisselogimist korvis olnud kinkekaartidest {count} ei mahtunud korvi (korvi saab lisada kuni {max} kinkekaarti); need jäid sinna korvi.',
  'basket.notInBasket': 'Toodet {id} ei ole ostukorvis.',
  'basket.unknownCode': 'Sellist sooduskoodi ei ole.',
  'basket.notice.UNAVAILABLE': 'Ei ole enam saadaval; summas ei arvestata.',
  'basket.notice.QUANTITY_CUT': 'Tellida saab ainult {max} tk; kogust vähendati.',
  'basket.notice.PRICE_CHANGED': 'Hind muutus: {from} -> {to}.',
  'basket.code.INACTIVE': 'Kood ei kehti enam.',
  'basket.code.NOT_YET_VALID': 'Kood ei kehti veel.',
  'basket.code.EXPIRED': 'Koodi kehtivus on lõppenud.',
  'basket.code.USED_UP': 'Kood on ära kasutatud.',
  'basket.code.OTHER_STORE': 'Kood ei kehti selles poes.',
  'basket.code.CUSTOMER_KIND': 'Kood ei ole teie kliendikonto tüübile.',
  'basket.code.BELOW_MINIMUM': 'Kood eeldab ostukorvi vähemalt {min} eest.',
  'basket.code.NO_ELIGIBLE_ITEMS': 'Kood ei kehti ühelegi korvis olevale tootele.',
  'basket.code.OTHER_DISCOUNT_LARGER': 'Toodetel on juba suurem soodustus.',
  'basket.code.OTHER_DISCOUNT_PARTLY':
    'Osal toodetel on juba oma soodustus; kood ei liitu sellega ja võtab maha ainult selle, mis soodustust ületab.',
  'basket.code.DELIVERY_NOT_COVERED': 'Kood teeb tasuta ainult pakiautomaati tarne; selle kasutamiseks vali pakiautomaat.',
  'basket.code.DELIVERY_FREE_ANYWAY': 'Selle ostukorvi tarne pakiautomaati on ka koodita tasuta.',
  'basket.unknownDeliveryMethod': 'Selles poes ei ole tarneviisi {id}.',
  'basket.deliveryNotOffered': 'Selle tarneviisiga ei saa seda ostukorvi saata.',
  'basket.deliveryMethodWithdrawn': 'Tarneviis {name} ei ole praegu saadaval; valige mõni teine.',
  'basket.parcelMachineRequired': 'Vali pakiautomaat.',
  'basket.unknownParcelMachine': 'Sellel tarneviisil ei ole sellist pakiautomaati.',
  'basket.shopRequired': 'Vali kauplus.',
  'basket.unknownShop': 'See kauplus ei ole selle tarneviisi väljastuskoht.',
  'basket.countryRequired': 'Vali riik.',
  'basket.countryNotServed': 'See tarneviis ei toimeta riiki {country}.',
};

const ru: Record<keyof typeof en, string> = {
  'basket.badToken': 'Заголовок basket-token не является токеном корзины.',
  'basket.versionMismatch': 'Корзина изменилась после версии {version}; прочитайте её заново и повторите.',
  'basket.unknownProduct': 'В этом магазине нет товара {id}.',
  'basket.unavailable': 'Этот товар сейчас нельзя заказать.',
  'basket.digitalOne': 'Цифровой товар можно положить в корзину только один раз.',
  'basket.quantityMax': 'Не более {max} шт. одного товара.',
  'basket.stockLimit': 'На складе только {stock} шт.',
  'basket.tooManyLines': 'В корзине может быть не более {max} разных товаров.',
  'basket.mergeLinesLeftOut':
    'Товаров из корзины до входа, не поместившихся в корзину (не более {max}): {count}; они остались в той корзине.',
  'basket.mergeQuantityCapped':
    'Товаров, которые были в обеих корзинах и которых вместе оказалось больше {max} шт.: {count}; одного товара в корзине может быть не более {max} шт., поэтому количество уменьшено до {max}.',
  'basket.mergeDigitalOnce':
    'Цифровых товаров, которые были в обеих корзинах: {count}; цифровой товар можно положить в корзину только один раз, поэтому каждый из них в корзине один раз.',
  'basket.mergeGiftCardsLeftOut':
    'Подарочных карт из корзины до входа, не поместившихся в корзину (не более {max}): {count}; они остались в той корзине.',
  'basket.notInBasket': 'Товара {id} нет в корзине.',
  'basket.unknownCode': 'Такого кода скидки нет.',
  'basket.notice.UNAVAILABLE': 'Больше не доступен; в сумме не учитывается.',
  'basket.notice.QUANTITY_CUT': 'Можно заказать только {max} шт.; количество уменьшено.',
  'basket.notice.PRICE_CHANGED': 'Цена изменилась: {from} -> {to}.',
  'basket.code.INACTIVE': 'Код больше не действует.',
  'basket.code.NOT_YET_VALID': 'Код ещё не действует.',
  'basket.code.EXPIRED': 'Срок действия кода истёк.',
  'basket.code.USED_UP': 'Код уже использован.',
  'basket.code.OTHER_STORE': 'Код не действует в этом магазине.',
  'basket.code.CUSTOMER_KIND': 'Код не предназначен для вашего типа учётной записи.',
  'basket.code.BELOW_MINIMUM': 'Код действует для корзины от {min}.',
  'basket.code.NO_ELIGIBLE_ITEMS': 'Код не распространяется ни на один товар в корзине.',
  'basket.code.OTHER_DISCOUNT_LARGER': 'На товары уже действует бóльшая скидка.',
  'basket.code.OTHER_DISCOUNT_PARTLY':
    'На часть товаров уже действует своя скидка; код с ней не суммируется и снимает только то, что её превышает.',
  'basket.code.DELIVERY_NOT_COVERED': 'Код делает бесплатной только доставку в почтомат; чтобы его использовать, выберите почтомат.',
  'basket.code.DELIVERY_FREE_ANYWAY': 'Доставка этой корзины в почтомат бесплатна и без кода.',
  'basket.unknownDeliveryMethod': 'В этом магазине нет способа доставки {id}.',
  'basket.deliveryNotOffered': 'Этим способом доставки нельзя отправить эту корзину.',
  'basket.deliveryMethodWithdrawn': 'Способ доставки {name} сейчас недоступен; выберите другой.',
  'basket.parcelMachineRequired': 'Выберите почтомат.',
  'basket.unknownParcelMachine': 'У этого способа доставки нет такого почтомата.',
  'basket.shopRequired': 'Выберите магазин.',
  'basket.unknownShop': 'Этот магазин не является пунктом выдачи этого способа доставки.',
  'basket.countryRequired': 'Выберите страну.',
  'basket.countryNotServed': 'Этот способ доставки не доставляет в {country}.',
};

export const basketMessages = { en, et, ru };

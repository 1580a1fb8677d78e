// Back-in-stock messages: answers, the confirmation mail of a guest's request and the mail. English is the reference; every language has
// every key (the types make a missing one a compile error).

const en = {
  'backInStock.unknownProduct': 'There is no product {id} in this store.',
  'backInStock.available': 'The product is available now: put it in the basket instead.',
  'backInStock.emailRequired': 'An email address is needed to tell you.',
  'backInStock.ownEmail': "A logged-in client is told at its own account's email address.",
  'backInStock.emailUnconfirmed':
    'Your email address is not confirmed yet: confirm it first (give the same address as a new email and follow the link mailed to it).',
  'backInStock.switchedOff': 'Back-in-stock mails are switched off in your preferences: switch them on to be told.',
  'backInStock.notFound': 'There is no such back-in-stock request.',
  'backInStock.loginRequired': 'Log in to see your back-in-stock requests.',
  'backInStock.mail.subject': '{product} is available again – {store}',
  'backInStock.mail.body': 'Good news: {product} is available again in {store}.',
  'backInStock.mail.link': 'See the product: {url}',
  'backInStock.mail.once': 'You asked us to tell you when it is back; this is the only mail about it.',
  'backInStock.badToken': 'The confirmation link is invalid or has expired.',
  'backInStock.confirm.subject': 'Confirm: tell you when {product} is back – {store}',
  'backInStock.confirm.body':
    'Someone (hopefully you) asked {store} to mail this address once when {product} can be bought again. We mail nothing about it until you confirm.',
  'backInStock.confirm.link': 'Confirm within {hours} hours: {url}',
  'backInStock.confirm.ignore': 'If this was not you, ignore this mail: without your confirmation we send nothing more.',
};

const et: Record<keyof typeof en, string> = {
  'backInStock.unknownProduct': 'Selles poes ei ole toodet {id}.',
  'backInStock.available': 'Toode on praegu saadaval: pange see otse ostukorvi.',
  'backInStock.emailRequired': 'Teavitamiseks on vaja e-posti aadressi.',
  'backInStock.ownEmail': 'Sisseloginud klienti teavitatakse tema konto e-posti aadressil.',
  'backInStock.emailUnconfirmed':
    'Teie e-posti aadress ei ole veel kinnitatud: kinnitage see kõigepealt (sisestage sama aadress uueks e-postiks ja avage sinna saadetud link).',
  'backInStock.switchedOff': 'Teie eelistustes on teated toote saabumisest välja lülitatud: teavituse saamiseks lülitage need sisse.',
  'backInStock.notFound': 'Sellist teavitussoovi ei ole.',
  'backInStock.loginRequired': 'Oma teavitussoovide nägemiseks logige sisse.',
  'backInStock.mail.subject': '{product} on jälle saadaval – {store}',
  'backInStock.mail.body': 'Hea uudis: {product} on poes {store} jälle saadaval.',
  'backInStock.mail.link': 'Vaadake toodet: {url}',
  'backInStock.mail.once': 'Soovisite teadet, kui toode on tagasi; rohkem me sellest ei kirjuta.',
  'backInStock.badToken': 'Kinnituslink on vigane või aegunud.',
  'backInStock.confirm.subject': 'Kinnitage: teatame, kui {product} on tagasi – {store}',
  'backInStock.confirm.body':
    'Keegi (loodetavasti teie) palus poel {store} saata sellele aadressile üks kiri, kui toodet {product} saab jälle osta. Me ei saada sellest midagi enne, kui olete soovi kinnitanud.',
  'backInStock.confirm.link': 'Kinnitage {hours} tunni jooksul: {url}',
  'backInStock.confirm.ignore': 'Kui see ei olnud teie, jätke kiri tähelepanuta: ilma kinnituseta me rohkem ei kirjuta.',
};

const ru: Record<keyof typeof en, string> = {
  'backInStock.unknownProduct': 'В этом магазине нет товара {id}.',
  'backInStock.available': 'Товар сейчас в наличии: положите его в корзину.',
  'backInStock.emailRequired': 'Для уведомления нужен адрес электронной почты.',
  'backInStock.ownEmail': 'Вошедшего клиента уведомляют по адресу его учётной записи.',
  'backInStock.emailUnconfirmed':
    'Ваш адрес электронной почты ещё не подтверждён: сначала подтвердите его (укажите тот же адрес как новый и перейдите по ссылке из письма).',
  'backInStock.switchedOff': 'В ваших настройках уведомления о поступлении товара выключены: включите их, чтобы получить письмо.',
  'backInStock.notFound': 'Такого запроса на уведомление нет.',
  'backInStock.loginRequired': 'Войдите, чтобы увидеть свои запросы на уведомление.',
  'backInStock.mail.subject': '{product} снова в наличии – {store}',
  'backInStock.mail.body': 'Хорошая новость: {product} снова в наличии в магазине {store}.',
  'backInStock.mail.link': 'Посмотреть товар: {url}',
  'backInStock.mail.once': 'Вы просили сообщить, когда товар появится; это единственное письмо о нём.',
  'backInStock.badToken': 'Ссылка подтверждения недействительна или устарела.',
  'backInStock.confirm.subject': 'Подтвердите: сообщим, когда {product} снова появится – {store}',
  'backInStock.confirm.body':
    'Кто-то (надеемся, вы) попросил магазин {store} написать на этот адрес, когда {product} снова можно будет купить. Без вашего подтверждения мы ничего об этом не пришлём.',
  'backInStock.confirm.link': 'Подтвердите в течение {hours} ч.: {url}',
  'backInStock.confirm.ignore': 'Если это были не вы, просто не обращайте внимания на письмо: без подтверждения мы больше не напишем.',
};

export const backInStockMessages = { en, et, ru };

// The social sign-in messages (their keys keep the `auth.` prefix they were born with).
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'auth.badReturnUrl': 'returnUrl must be a page of this web store.',
  'auth.badAuthId': 'The sign-in attempt is unknown, expired or already used. Please sign in again.',
  'auth.linkWithPassword': 'An account with this email exists. Log in with your password and link {provider} from your account.',
  'auth.identityInUse': 'This {provider} account is already linked to another user.',
  'auth.socialFailed': 'Sign-in with {provider} could not be verified.',
  'auth.socialUnavailable': '{provider} cannot be reached just now. Please try again in a moment.',
  'auth.providerNotConfigured': 'Sign-in with {provider} is not available.',
  'auth.externalParameters': 'Give authclient (web sign-in), or client, id and token (app sign-in).',
  'auth.flowOtherBrowser': 'This sign-in was started in another browser, or it has expired. Please start it again from the store.',
  'auth.badLinkId': 'The link is unknown, expired or already used. Please start linking again.',
  'auth.linkNotYours': 'This link was started by another account.',
  'auth.freshLoginRequired': 'For your safety, log in again and link your account within 10 minutes of logging in.',
  'auth.idTokenUsed': 'This {provider} sign-in was already used. Please sign in again.',
  'auth.signInCollided': 'Another sign-in with this account happened at the same moment. Please try again.',
};

const et: Record<keyof typeof en, string> = {
  'auth.badReturnUrl': 'returnUrl peab olema selle veebipoe leht.',
  'auth.badAuthId': 'Sisselogimiskatse on tundmatu, aegunud või juba kasutatud. Palun logige uuesti sisse.',
  'auth.linkWithPassword': 'Selle e-posti aadressiga konto on olemas. Logige sisse parooliga ja siduge {provider} oma kontoga.',
  'auth.identityInUse': 'See {provider} konto on juba seotud teise kasutajaga.',
  'auth.socialFailed': 'Sisselogimist teenusega {provider} ei õnnestunud kontrollida.',
  'auth.socialUnavailable': 'Teenus {provider} ei ole praegu kättesaadav. Palun proovige hetke pärast uuesti.',
  'auth.providerNotConfigured': 'Sisselogimine teenusega {provider} ei ole saadaval.',
  'auth.externalParameters': 'Andke authclient (veebis sisselogimine) või client, id ja token (rakenduses sisselogimine).',
  'auth.flowOtherBrowser': 'See sisselogimine alustati teises brauseris või on see aegunud. Palun alustage uuesti poe lehelt.',
  'auth.badLinkId': 'Sidumine on tundmatu, aegunud või juba kasutatud. Palun alustage sidumist uuesti.',
  'auth.linkNotYours': 'Selle sidumise alustas teine konto.',
  'auth.freshLoginRequired': 'Teie turvalisuse huvides logige uuesti sisse ja siduge konto 10 minuti jooksul pärast sisselogimist.',
  'auth.idTokenUsed': 'See {provider} sisselogimine on juba kasutatud. Palun logige uuesti sisse.',
  'auth.signInCollided': 'Samal hetkel toimus selle kontoga teine sisselogimine. Palun proovige uuesti.',
};

const ru: Record<keyof typeof en, string> = {
  'auth.badReturnUrl': 'returnUrl должен быть страницей этого интернет-магазина.',
  'auth.badAuthId': 'Попытка входа неизвестна, устарела или уже использована. Войдите ещё раз.',
  'auth.linkWithPassword': 'Учётная запись с этим адресом уже есть. Войдите с паролем и привяжите {provider} в своей учётной записи.',
  'auth.identityInUse': 'Эта учётная запись {provider} уже привязана к другому пользователю.',
  'auth.socialFailed': 'Не удалось проверить вход через {provider}.',
  'auth.socialUnavailable': 'Сервис {provider} сейчас недоступен. Пожалуйста, попробуйте чуть позже.',
  'auth.providerNotConfigured': 'Вход через {provider} недоступен.',
  'auth.externalParameters': 'Укажите authclient (вход на сайте) или client, id и token (вход в приложении).',
  'auth.flowOtherBrowser': 'Этот вход был начат в другом браузере или устарел. Начните его заново на сайте магазина.',
  'auth.badLinkId': 'Привязка неизвестна, устарела или уже использована. Начните привязку заново.',
  'auth.linkNotYours': 'Эту привязку начала другая учётная запись.',
  'auth.freshLoginRequired': 'В целях безопасности войдите снова и привяжите учётную запись в течение 10 минут после входа.',
  'auth.idTokenUsed': 'Этот вход через {provider} уже использован. Войдите ещё раз.',
  'auth.signInCollided': 'В этот же момент произошёл другой вход в эту учётную запись. Попробуйте ещё раз.',
};

export const socialMessages = { en, et, ru };

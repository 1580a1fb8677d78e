// The social sign-in messages (their keys keep the `auth.` prefix they were born with).
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'auth.badReturnUrl': 'returnUrl must be a page of this web store.',
  'auth.badAuthId': 'The sign-in attempt is unknown, expired or already used. Please sign in again.',
  'auth.linkWithPassword': 'An account with this email exists. Log in with your password and link {provider} from your account.',
  'auth.identityInUse': 'This {provider} account is already linked to another user.',
  'auth.socialFailed': 'Sign-in with {provider} could not be verified.',
  'auth.providerNotConfigured': 'Sign-in with {provider} is not available.',
  'auth.externalParameters': 'Give authclient (web sign-in), or client, id and token (app sign-in).',
};

const et: Record<keyof typeof en, string> = {
  'auth.badReturnUrl': 'returnUrl peab olema selle veebipoe leht.',
  'auth.badAuthId': 'Sisselogimiskatse on tundmatu, aegunud või juba kasutatud. Palun logige uuesti sisse.',
  'auth.linkWithPassword': 'Selle e-posti aadressiga konto on olemas. Logige sisse parooliga ja siduge {provider} oma kontoga.',
  'auth.identityInUse': 'See {provider} konto on juba seotud teise kasutajaga.',
  'auth.socialFailed': 'Sisselogimist teenusega {provider} ei õnnestunud kontrollida.',
  'auth.providerNotConfigured': 'Sisselogimine teenusega {provider} ei ole saadaval.',
  'auth.externalParameters': 'Andke authclient (veebis sisselogimine) või client, id ja token (rakenduses sisselogimine).',
};

const ru: Record<keyof typeof en, string> = {
  'auth.badReturnUrl': 'returnUrl должен быть страницей этого интернет-магазина.',
  'auth.badAuthId': 'Попытка входа неизвестна, устарела или уже использована. Войдите ещё раз.',
  'auth.linkWithPassword': 'Учётная запись с этим адресом уже есть. Войдите с паролем и привяжите {provider} в своей учётной записи.',
  'auth.identityInUse': 'Эта учётная запись {provider} уже привязана к другому пользователю.',
  'auth.socialFailed': 'Не удалось проверить вход через {provider}.',
  'auth.providerNotConfigured': 'Вход через {provider} недоступен.',
  'auth.externalParameters': 'Укажите authclient (вход на сайте) или client, id и token (вход в приложении).',
};

export const socialMessages = { en, et, ru };

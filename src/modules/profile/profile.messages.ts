// The profile module's messages: errors of the profile, login identity, addresses and
// preferences, and the texts of its mails. English is the reference; every language has every key.

const en = {
  'profile.emailTaken': 'This email address is already used by another account.',
  'profile.badEmailToken': 'The confirmation link is invalid or has expired.',
  'profile.sameEmail': 'This is already your email address.',
  'profile.emailUnconfirmed':
    'Your email address is not confirmed yet: confirm it first (give the same address as a new email and follow the link mailed to it).',
  'profile.currentPasswordRequired': 'Enter your current password.',
  'profile.freshLoginRequired': 'For your safety, log in again and change your email within 10 minutes of logging in.',
  'profile.wrongPassword': 'The current password is incorrect.',
  'profile.nothingToChange': 'Give a new email address or a new password.',
  'profile.tooManyAddresses': 'You can save at most {limit} addresses.',
  'profile.unknownCountry': 'Choose a country from the list.',
  'profile.addressNotFound': 'Address not found.',
  'profile.unknownCategory': 'Unknown category: {category}.',
  'profile.mail.greeting': 'Hello {name},',
  'profile.mail.confirmSubject': 'Confirm your new email address – {store}',
  'profile.mail.confirmText':
    'You asked to use this address to sign in to {store}. The change takes effect once you confirm it. The link is valid for {hours} hours.',
  'profile.mail.confirmAction': 'Confirm the address',
  'profile.mail.ignore': 'If this was not you, ignore this mail: nothing changes.',
  'profile.mail.changedSubject': 'Your email address was changed – {store}',
  'profile.mail.changedText':
    'The email address you sign in to {store} with was changed to {email}. If this was not you, contact us at once.',
  'profile.mail.passwordSubject': 'Your password was changed – {store}',
  'profile.mail.passwordText':
    'The password of your account in {store} was changed and your other sessions were ended. If this was not you, reset your password at once.',
};

const et: Record<keyof typeof en, string> = {
  'profile.emailTaken': 'See e-posti aadress on juba teise konto kasutuses.',
  'profile.badEmailToken': 'Kinnituslink on vigane või aegunud.',
  'profile.sameEmail': 'See on juba teie e-posti aadress.',
  'profile.emailUnconfirmed':
    'Teie e-posti aadress ei ole veel kinnitatud: kinnitage see kõigepealt (sisestage sama aadress uueks e-postiks ja avage sinna saadetud link).',
  'profile.currentPasswordRequired': 'Sisestage oma praegune parool.',
  'profile.freshLoginRequired':
    'Teie turvalisuse huvides logige uuesti sisse ja muutke e-posti aadressi 10 minuti jooksul pärast sisselogimist.',
  'profile.wrongPassword': 'Praegune parool on vale.',
  'profile.nothingToChange': 'Sisestage uus e-posti aadress või uus parool.',
  'profile.tooManyAddresses': 'Salvestada saab kõige rohkem {limit} aadressi.',
  'profile.unknownCountry': 'Valige riik loetelust.',
  'profile.addressNotFound': 'Aadressi ei leitud.',
  'profile.unknownCategory': 'Tundmatu kategooria: {category}.',
  'profile.mail.greeting': 'Tere, {name}!',
  'profile.mail.confirmSubject': 'Kinnitage oma uus e-posti aadress – {store}',
  'profile.mail.confirmText':
    'Soovisite kasutada seda aadressi poodi {store} sisenemiseks. Muudatus jõustub pärast kinnitamist. Link kehtib {hours} tundi.',
  'profile.mail.confirmAction': 'Kinnita aadress',
  'profile.mail.ignore': 'Kui see ei olnud teie, jätke kiri tähelepanuta: midagi ei muutu.',
  'profile.mail.changedSubject': 'Teie e-posti aadress muudeti – {store}',
  'profile.mail.changedText':
    'E-posti aadress, millega poodi {store} sisenete, muudeti: {email}. Kui see ei olnud teie, võtke meiega kohe ühendust.',
  'profile.mail.passwordSubject': 'Teie parool muudeti – {store}',
  'profile.mail.passwordText':
    'Teie konto parool poes {store} muudeti ja teised seansid lõpetati. Kui see ei olnud teie, taastage parool kohe.',
};

const ru: Record<keyof typeof en, string> = {
  'profile.emailTaken': 'Этот адрес электронной почты уже используется другой учётной записью.',
  'profile.badEmailToken': 'Ссылка для подтверждения недействительна или устарела.',
  'profile.sameEmail': 'Это уже ваш адрес электронной почты.',
  'profile.emailUnconfirmed':
    'Ваш адрес электронной почты ещё не подтверждён: сначала подтвердите его (укажите тот же адрес как новый и перейдите по ссылке из письма).',
  'profile.currentPasswordRequired': 'Введите текущий пароль.',
  'profile.freshLoginRequired': 'В целях безопасности войдите снова и измените адрес электронной почты в течение 10 минут после входа.',
  'profile.wrongPassword': 'Текущий пароль неверен.',
  'profile.nothingToChange': 'Укажите новый адрес электронной почты или новый пароль.',
  'profile.tooManyAddresses': 'Можно сохранить не более {limit} адресов.',
  'profile.unknownCountry': 'Выберите страну из списка.',
  'profile.addressNotFound': 'Адрес не найден.',
  'profile.unknownCategory': 'Неизвестная категория: {category}.',
  'profile.mail.greeting': 'Здравствуйте, {name}!',
  'profile.mail.confirmSubject': 'Подтвердите новый адрес электронной почты – {store}',
  'profile.mail.confirmText':
    'Вы хотите входить в {store} с этим адресом. Изменение вступит в силу после подтверждения. Ссылка действительна {hours} ч.',
  'profile.mail.confirmAction': 'Подтвердить адрес',
  'profile.mail.ignore': 'Если это были не вы, просто проигнорируйте письмо: ничего не изменится.',
  'profile.mail.changedSubject': 'Ваш адрес электронной почты изменён – {store}',
  'profile.mail.changedText':
    'Адрес электронной почты для входа в {store} изменён на {email}. Если это были не вы, немедленно свяжитесь с нами.',
  'profile.mail.passwordSubject': 'Ваш пароль изменён – {store}',
  'profile.mail.passwordText':
    'Пароль вашей учётной записи в {store} изменён, остальные сеансы завершены. Если это были не вы, немедленно восстановите пароль.',
};

export const profileMessages = { en, et, ru };

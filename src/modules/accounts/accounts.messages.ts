// The accounts module's messages: sign-in, verification, password reset, registration rules.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'auth.invalidCredentials': 'Incorrect email or password.',
  'auth.notVerified': 'Your email address is not verified yet. Please follow the link in the verification mail.',
  'auth.noAccountInStore': 'You have no account in this web store.',
  'auth.roleNotHeld': 'You cannot log in as {role}; choose one of: {roles}.',
  'auth.unknownStoreCode': 'Unknown web store; use one of: {stores}.',
  'auth.sameStore': 'You are already in this web store.',
  'auth.retailOnly': 'Only retail customers can switch web stores.',
  'auth.badVerificationToken': 'The verification link is invalid or has expired.',
  'auth.activationMismatch': 'The verification link belongs to another web store.',
  'auth.badResetToken': 'The password reset link is invalid or has expired.',
  'password.tooShort': 'The password must contain at least {limit} characters.',
  'password.tooLong': 'The password may contain at most {limit} characters.',
  'password.common': 'This password is too common; choose another.',
  'password.sameAsEmail': 'The password must not be your email address.',
  'password.mismatch': 'The passwords do not match.',
  'terms.required': 'You must accept the terms and conditions.',
  'birthday.range': 'The birthday must be a past date after 1900-01-01.',
  'wholesale.noWeb2': 'Wholesale customers register in the main web store.',
};

const et: Record<keyof typeof en, string> = {
  'auth.invalidCredentials': 'Vale e-posti aadress või parool.',
  'auth.notVerified': 'Teie e-posti aadress on veel kinnitamata. Palun järgige kinnituskirjas olevat linki.',
  'auth.noAccountInStore': 'Teil ei ole selles veebipoes kontot.',
  'auth.roleNotHeld': 'Te ei saa siseneda rollis {role}; valige üks järgmistest: {roles}.',
  'auth.unknownStoreCode': 'Tundmatu veebipood; lubatud: {stores}.',
  'auth.sameStore': 'Te olete juba selles veebipoes.',
  'auth.retailOnly': 'Veebipoodi saavad vahetada ainult jaekliendid.',
  'auth.badVerificationToken': 'Kinnituslink on vigane või aegunud.',
  'auth.activationMismatch': 'Kinnituslink kuulub teisele veebipoele.',
  'auth.badResetToken': 'Parooli taastamise link on vigane või aegunud.',
  'password.tooShort': 'Parool peab sisaldama vähemalt {limit} tähemärki.',
  'password.tooLong': 'Parool võib sisaldada kõige rohkem {limit} tähemärki.',
  'password.common': 'See parool on liiga levinud; valige mõni muu.',
  'password.sameAsEmail': 'Parool ei tohi olla teie e-posti aadress.',
  'password.mismatch': 'Paroolid ei kattu.',
  'terms.required': 'Peate nõustuma tingimustega.',
  'birthday.range': 'Sünnipäev peab olema möödunud kuupäev pärast 01.01.1900.',
  'wholesale.noWeb2': 'Hulgikliendid registreeruvad põhiveebipoes.',
};

const ru: Record<keyof typeof en, string> = {
  'auth.invalidCredentials': 'Неверный адрес электронной почты или пароль.',
  'auth.notVerified': 'Ваш адрес электронной почты ещё не подтверждён. Перейдите по ссылке из письма.',
  'auth.noAccountInStore': 'У вас нет учётной записи в этом интернет-магазине.',
  'auth.roleNotHeld': 'Вы не можете войти как {role}; выберите одно из: {roles}.',
  'auth.unknownStoreCode': 'Неизвестный интернет-магазин; допустимые: {stores}.',
  'auth.sameStore': 'Вы уже находитесь в этом интернет-магазине.',
  'auth.retailOnly': 'Сменить интернет-магазин могут только розничные покупатели.',
  'auth.badVerificationToken': 'Ссылка для подтверждения недействительна или устарела.',
  'auth.activationMismatch': 'Ссылка для подтверждения относится к другому интернет-магазину.',
  'auth.badResetToken': 'Ссылка для сброса пароля недействительна или устарела.',
  'password.tooShort': 'Пароль должен содержать минимум {limit} символов.',
  'password.tooLong': 'Пароль может содержать максимум {limit} символов.',
  'password.common': 'Этот пароль слишком распространён; выберите другой.',
  'password.sameAsEmail': 'Пароль не должен совпадать с адресом электронной почты.',
  'password.mismatch': 'Пароли не совпадают.',
  'terms.required': 'Необходимо принять условия.',
  'birthday.range': 'Дата рождения должна быть в прошлом и после 01.01.1900.',
  'wholesale.noWeb2': 'Оптовые клиенты регистрируются в основном интернет-магазине.',
};

export const accountsMessages = { en, et, ru };

// The blog module's messages (blog, news, schedules, redirects, QR codes and their admin edits).
// English is the reference; every language has every key.

const en = {
  'blog.postNotFound': 'There is no blog post "{slug}" in this store.',
  'blog.newsNotFound': 'There is no news item "{slug}" in this store.',
  'blog.shopNotFound': 'There is no shop "{code}".',
  'blog.redirectNotFound': 'No redirect is known for "{path}".',
  'blog.qrCodeNotFound': 'There is nothing with the code "{code}" to make a QR code of.',
  'blog.contentNotFound': 'There is no {kind} with the code "{code}".',
  'blog.unknownContentKind': 'There is no content kind "{kind}" here; known kinds: {kinds}.',
  'blog.badPath': 'A path starts with "/" (or is a full http(s) URL) and has at most 1000 characters.',
  // The rules of operator input a line's schema cannot say (content-kinds.ts): the admin PUT answers
  // them on the field in the caller's language, an import reports them in English after `/field:`.
  'blog.rule.slugTaken': '"{slug}" is already used by "{code}" in {store}',
  'blog.rule.unknownCategory': 'there is no blog category "{category}" in {store}',
  'blog.rule.pathForm': 'must start with "/" (or be a full http(s) URL)',
  'blog.rule.pathBytes': 'must be at most {max} bytes in UTF-8',
  'blog.rule.redirectLoop': 'a redirect to its own path would loop',
  'blog.rule.pathTaken': '"{path}" already redirects as "{code}" in {store}',
  'blog.rule.timeRange': 'a time is at most 24:00 (and opens before it)',
  'blog.rule.hoursOrder': 'closes must be after opens (hours lie within one day)',
  'blog.rule.closedDayHours': 'a closed day has no opens or closes',
  'blog.rule.openDayHours': 'give opens and closes, or closed: true',
  'blog.rule.unknownShop': 'there is no shop "{shop}"',
  'blog.rule.tagLength': 'must be at most {max} characters in lower case',
};

const et: Record<keyof typeof en, string> = {
  'blog.postNotFound': 'Selles poes ei ole blogipostitust "{slug}".',
  'blog.newsNotFound': 'Selles poes ei ole uudist "{slug}".',
  'blog.shopNotFound': 'Poodi "{code}" ei ole.',
  'blog.redirectNotFound': 'Aadressile "{path}" ei ole ümbersuunamist.',
  'blog.qrCodeNotFound': 'Koodiga "{code}" ei ole midagi, millest QR-koodi teha.',
  'blog.contentNotFound': 'Koodiga "{code}" ei ole üksust {kind}.',
  'blog.unknownContentKind': 'Sisuliiki "{kind}" siin ei ole; olemas on: {kinds}.',
  'blog.badPath': 'Aadress algab märgiga "/" (või on täielik http(s) URL) ja on kuni 1000 märki pikk.',
  'blog.rule.slugTaken': '"{slug}" on poes {store} juba kasutusel (kood "{code}")',
  'blog.rule.unknownCategory': 'poes {store} ei ole blogikategooriat "{category}"',
  'blog.rule.pathForm': 'peab algama märgiga "/" (või olema täielik http(s) URL)',
  'blog.rule.pathBytes': 'võib UTF-8 kodeeringus olla kuni {max} baiti',
  'blog.rule.redirectLoop': 'ümbersuunamine iseenda aadressile jääks ringlema',
  'blog.rule.pathTaken': '"{path}" on poes {store} juba ümber suunatud (kood "{code}")',
  'blog.rule.timeRange': 'kellaaeg on kuni 24:00 (ja opens sellest varasem)',
  'blog.rule.hoursOrder': 'closes peab olema hilisem kui opens (lahtiolekuaeg jääb ühe päeva sisse)',
  'blog.rule.closedDayHours': 'suletud päeval ei ole opens ega closes',
  'blog.rule.openDayHours': 'andke opens ja closes või closed: true',
  'blog.rule.unknownShop': 'poodi "{shop}" ei ole',
  'blog.rule.tagLength': 'võib väiketähtedes olla kuni {max} märki',
};

const ru: Record<keyof typeof en, string> = {
  'blog.postNotFound': 'В этом магазине нет записи блога «{slug}».',
  'blog.newsNotFound': 'В этом магазине нет новости «{slug}».',
  'blog.shopNotFound': 'Магазина «{code}» нет.',
  'blog.redirectNotFound': 'Для «{path}» перенаправление не задано.',
  'blog.qrCodeNotFound': 'Нет ничего с кодом «{code}», из чего можно сделать QR-код.',
  'blog.contentNotFound': 'Нет объекта {kind} с кодом «{code}».',
  'blog.unknownContentKind': 'Здесь нет вида содержимого «{kind}»; известные виды: {kinds}.',
  'blog.badPath': 'Путь начинается с «/» (или это полный http(s) URL) и содержит не более 1000 символов.',
  'blog.rule.slugTaken': '«{slug}» уже используется в магазине {store} (код «{code}»)',
  'blog.rule.unknownCategory': 'в магазине {store} нет категории блога «{category}»',
  'blog.rule.pathForm': 'должен начинаться с «/» (или быть полным http(s) URL)',
  'blog.rule.pathBytes': 'должен занимать не более {max} байт в UTF-8',
  'blog.rule.redirectLoop': 'перенаправление на собственный путь зациклилось бы',
  'blog.rule.pathTaken': '«{path}» уже перенаправляется в магазине {store} (код «{code}»)',
  'blog.rule.timeRange': 'время не позже 24:00 (и opens раньше него)',
  'blog.rule.hoursOrder': 'closes должно быть позже opens (часы работы лежат в пределах одного дня)',
  'blog.rule.closedDayHours': 'у закрытого дня нет opens и closes',
  'blog.rule.openDayHours': 'укажите opens и closes или closed: true',
  'blog.rule.unknownShop': 'магазина «{shop}» нет',
  'blog.rule.tagLength': 'должен содержать не более {max} символов в нижнем регистре',
};

export const blogMessages = { en, et, ru };

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
  'blog.invalidContent': '{message}',
  'blog.badPath': 'A path starts with "/" (or is a full http(s) URL) and has at most 1000 characters.',
};

const et: Record<keyof typeof en, string> = {
  'blog.postNotFound': 'Selles poes ei ole blogipostitust "{slug}".',
  'blog.newsNotFound': 'Selles poes ei ole uudist "{slug}".',
  'blog.shopNotFound': 'Poodi "{code}" ei ole.',
  'blog.redirectNotFound': 'Aadressile "{path}" ei ole ümbersuunamist.',
  'blog.qrCodeNotFound': 'Koodiga "{code}" ei ole midagi, millest QR-koodi teha.',
  'blog.contentNotFound': 'Koodiga "{code}" ei ole üksust {kind}.',
  'blog.unknownContentKind': 'Sisuliiki "{kind}" siin ei ole; olemas on: {kinds}.',
  'blog.invalidContent': '{message}',
  'blog.badPath': 'Aadress algab märgiga "/" (või on täielik http(s) URL) ja on kuni 1000 märki pikk.',
};

const ru: Record<keyof typeof en, string> = {
  'blog.postNotFound': 'В этом магазине нет записи блога «{slug}».',
  'blog.newsNotFound': 'В этом магазине нет новости «{slug}».',
  'blog.shopNotFound': 'Магазина «{code}» нет.',
  'blog.redirectNotFound': 'Для «{path}» перенаправление не задано.',
  'blog.qrCodeNotFound': 'Нет ничего с кодом «{code}», из чего можно сделать QR-код.',
  'blog.contentNotFound': 'Нет объекта {kind} с кодом «{code}».',
  'blog.unknownContentKind': 'Здесь нет вида содержимого «{kind}»; известные виды: {kinds}.',
  'blog.invalidContent': '{message}',
  'blog.badPath': 'Путь начинается с «/» (или это полный http(s) URL) и содержит не более 1000 символов.',
};

export const blogMessages = { en, et, ru };

// Search's messages (the key keeps the `catalogue.` prefix it had before search was its own module).
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'catalogue.searchUnavailable': 'Search is being updated. Please try again in a moment.',
  'search.oneLetterWords': 'The text "{text}" has only one-letter words: type at least one word of two letters or more.',
  'search.tooSlow': 'This search takes too long to answer. Please make it narrower: more specific words or fewer filters.',
};

const et: Record<keyof typeof en, string> = {
  'catalogue.searchUnavailable': 'Otsingut uuendatakse. Palun proovige hetke pärast uuesti.',
  'search.oneLetterWords': 'Tekstis "{text}" on ainult ühetähelised sõnad: sisestage vähemalt üks kahe- või enamatäheline sõna.',
  'search.tooSlow': 'Selle otsingu vastamine võtab liiga kaua aega. Palun täpsustage otsingut: täpsemad sõnad või vähem filtreid.',
};

const ru: Record<keyof typeof en, string> = {
  'catalogue.searchUnavailable': 'Поиск обновляется. Пожалуйста, повторите попытку через минуту.',
  'search.oneLetterWords': 'В тексте "{text}" только однобуквенные слова: введите хотя бы одно слово из двух или более букв.',
  'search.tooSlow': 'Этот поиск выполняется слишком долго. Пожалуйста, уточните его: более конкретные слова или меньше фильтров.',
};

export const searchMessages = { en, et, ru };

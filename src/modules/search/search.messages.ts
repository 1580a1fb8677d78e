// Search's messages (the key keeps the `catalogue.` prefix it had before search was its own module).
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'catalogue.searchUnavailable': 'Search is being updated. Please try again in a moment.',
};

const et: Record<keyof typeof en, string> = {
  'catalogue.searchUnavailable': 'Otsingut uuendatakse. Palun proovige hetke pärast uuesti.',
};

const ru: Record<keyof typeof en, string> = {
  'catalogue.searchUnavailable': 'Поиск обновляется. Пожалуйста, повторите попытку через минуту.',
};

export const searchMessages = { en, et, ru };

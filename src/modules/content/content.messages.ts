// The content module's messages. English is the reference; every language has every key.

const en = {
  'content.pageNotFound': 'There is no page "{slug}" in this store.',
  'content.categoryPageNotFound': 'There is no landing page for category {id} in this store.',
  'content.mainPageNotFound': 'This store has no main page.',
  'content.menuNotFound': 'This store has no menu.',
  'content.itemNotFound': 'There is no {kind} with the code "{code}".',
  'content.invalidValue': '{message}',
};

const et: Record<keyof typeof en, string> = {
  'content.pageNotFound': 'Selles poes ei ole lehte "{slug}".',
  'content.categoryPageNotFound': 'Selles poes ei ole kategooria {id} maandumislehte.',
  'content.mainPageNotFound': 'Sellel poel ei ole avalehte.',
  'content.menuNotFound': 'Sellel poel ei ole menüüd.',
  'content.itemNotFound': 'Koodiga "{code}" {kind} puudub.',
  'content.invalidValue': '{message}',
};

const ru: Record<keyof typeof en, string> = {
  'content.pageNotFound': 'В этом магазине нет страницы "{slug}".',
  'content.categoryPageNotFound': 'В этом магазине нет целевой страницы категории {id}.',
  'content.mainPageNotFound': 'У этого магазина нет главной страницы.',
  'content.menuNotFound': 'У этого магазина нет меню.',
  'content.itemNotFound': 'Нет {kind} с кодом "{code}".',
  'content.invalidValue': '{message}',
};

export const contentMessages = { en, et, ru };

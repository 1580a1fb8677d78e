// The content module's messages. English is the reference; every language has every key.
// `content.rule.*` are the rules of operator input (content-write.service.ts): a PUT answers them
// in the caller's language, an import reports them in English after the line's `/field:`. A window's
// order and a date are the shared import readers' (`import.*`, src/i18n/messages.ts).

const en = {
  'content.pageNotFound': 'There is no page "{slug}" in this store.',
  'content.categoryPageNotFound': 'There is no landing page for category {id} in this store.',
  'content.mainPageNotFound': 'This store has no main page.',
  'content.menuNotFound': 'This store has no menu.',
  'content.itemNotFound': 'There is no {kind} with the code "{code}".',
  'content.rule.slugTaken': '"{slug}" is already used by "{code}" in store {store}',
  'content.rule.pageNeeds': 'required for a {kind} page',
  'content.rule.unknownCategory': 'there is no category "{category}" in store {store}',
  'content.rule.blockNeeds': 'required for a {type} block',
  'content.rule.richTextBody': 'a RICH_TEXT block needs a body in at least one language',
};

const et: Record<keyof typeof en, string> = {
  'content.pageNotFound': 'Selles poes ei ole lehte "{slug}".',
  'content.categoryPageNotFound': 'Selles poes ei ole kategooria {id} maandumislehte.',
  'content.mainPageNotFound': 'Sellel poel ei ole avalehte.',
  'content.menuNotFound': 'Sellel poel ei ole menüüd.',
  'content.itemNotFound': 'Koodiga "{code}" {kind} puudub.',
  'content.rule.slugTaken': '"{slug}" on poes {store} juba kasutusel (kood "{code}")',
  'content.rule.pageNeeds': 'on {kind}-tüüpi lehel kohustuslik',
  'content.rule.unknownCategory': 'poes {store} ei ole kategooriat "{category}"',
  'content.rule.blockNeeds': 'on {type}-tüüpi plokil kohustuslik',
  'content.rule.richTextBody': 'RICH_TEXT-tüüpi plokil peab vähemalt ühes keeles olema body',
};

const ru: Record<keyof typeof en, string> = {
  'content.pageNotFound': 'В этом магазине нет страницы "{slug}".',
  'content.categoryPageNotFound': 'В этом магазине нет целевой страницы категории {id}.',
  'content.mainPageNotFound': 'У этого магазина нет главной страницы.',
  'content.menuNotFound': 'У этого магазина нет меню.',
  'content.itemNotFound': 'Нет {kind} с кодом "{code}".',
  'content.rule.slugTaken': '«{slug}» уже используется в магазине {store} (код «{code}»)',
  'content.rule.pageNeeds': 'обязательно для страницы типа {kind}',
  'content.rule.unknownCategory': 'в магазине {store} нет категории «{category}»',
  'content.rule.blockNeeds': 'обязательно для блока типа {type}',
  'content.rule.richTextBody': 'блоку типа RICH_TEXT нужен body хотя бы на одном языке',
};

export const contentMessages = { en, et, ru };

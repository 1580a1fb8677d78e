import type { Language } from '../../i18n/index.js';

// News and blog categories are translated; a reader gets the asked language, else the store's
// default language, else Estonian (which every import requires).

/** The languages to try, in order, without repeats. */
export function fallbackLanguages(asked: Language, storeDefault: Language): string[] {
  return [...new Set([asked, storeDefault, 'et'])];
}

/** The row of the first language in `languages` that has one. */
export function pickTranslation<R extends { language: string }>(rows: readonly R[], languages: readonly string[]): R | undefined {
  for (const language of languages) {
    const row = rows.find((candidate) => candidate.language === language);
    if (row) return row;
  }
  return rows[0];
}

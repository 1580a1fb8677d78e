import type { Language } from '../../i18n/index.js';

// Texts per language as stored (`translations` JSON): the caller's language, else the store's
// default language, else the first language the item has, so an item is never shown without text.

export const LANGUAGES: readonly Language[] = ['et', 'en', 'ru'];

export type Translations<T> = Partial<Record<Language, T>>;

export function parseTranslations<T>(json: string): Translations<T> {
  return JSON.parse(json) as Translations<T>;
}

/** The texts in the language asked for, or its fallback, and which language they are in. */
export function pickLanguage<T>(
  translations: Translations<T>,
  asked: Language,
  storeDefault: Language,
): { language: Language; texts: T } | undefined {
  for (const language of [asked, storeDefault, ...LANGUAGES]) {
    const texts = translations[language];
    if (texts !== undefined) return { language, texts };
  }
  return undefined;
}

/** A label map ({et, en?, ru?}) read the same way. */
export function pickLabel(labels: Partial<Record<Language, string>>, asked: Language, storeDefault: Language): string {
  return pickLanguage(labels, asked, storeDefault)?.texts ?? '';
}

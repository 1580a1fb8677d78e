import { sharedMessages, type SharedMessageKey } from './messages.js';

export const LANGUAGES = ['et', 'en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/**
 * The modules' messages, one member per key. Empty here: src/messages.ts, the composition root of
 * the messages, adds each module's keys by declaration merging, so this layer imports no module.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ModuleMessages {}

export type MessageKey = SharedMessageKey | (keyof ModuleMessages & string);

/** One module's messages: English is the reference, and the other languages have exactly its keys. */
export type MessageSet<Key extends string> = Record<Language, Record<Key, string>>;

const catalogues: Record<Language, Map<string, string>> = {
  et: new Map(Object.entries(sharedMessages.et)),
  en: new Map(Object.entries(sharedMessages.en)),
  ru: new Map(Object.entries(sharedMessages.ru)),
};

/**
 * Adds a module's messages to the ones translate() knows. Idempotent (a root may be imported by
 * many test files in one process); a key another module already registered with a different text
 * is a mistake and throws.
 */
export function registerMessages(set: MessageSet<string>): void {
  for (const language of LANGUAGES) {
    const catalogue = catalogues[language];
    for (const [key, text] of Object.entries(set[language])) {
      const known = catalogue.get(key);
      if (known !== undefined && known !== text) throw new Error(`Message ${key} (${language}) is registered twice with different texts`);
      catalogue.set(key, text);
    }
  }
}

/**
 * The message in the given language with `{name}` placeholders filled in. A key no root registered
 * (a program that did not import src/messages.ts) comes back as the key itself.
 */
export function translate(language: Language, key: MessageKey, params: Record<string, string | number> = {}): string {
  const template = catalogues[language].get(key) ?? catalogues.en.get(key) ?? key;
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/** An amount in euros as a customer's mail writes it: 12,50 € in Estonian and Russian, €12.50 in English. */
export function formatEuros(cents: number, language: Language): string {
  const amount = (cents / 100).toFixed(2);
  return language === 'en' ? `€${amount}` : `${amount.replace('.', ',')} €`;
}

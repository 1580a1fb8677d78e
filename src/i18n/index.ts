import { messages, type MessageKey } from './messages.js';

export const LANGUAGES = ['et', 'en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];

export function isLanguage(value: unknown): value is Language {
  return typeof value === 'string' && (LANGUAGES as readonly string[]).includes(value);
}

/** The message in the given language with `{name}` placeholders filled in. */
export function translate(language: Language, key: MessageKey, params: Record<string, string | number> = {}): string {
  const template = messages[language][key] ?? messages.en[key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

export type { MessageKey };

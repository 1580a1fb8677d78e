import type { InEachLanguage } from './http.js';

// What the shared rules of import lines (src/modules/catalogue-import/fields.ts, keys `import.*`) say
// in each language, as a content or blog edit answers them: one expectation for every suite.

/** `import.windowOrder` for a window of visibleFrom and visibleTo. */
export const WINDOW_ORDER: InEachLanguage = {
  et: 'peab olema hilisem kui visibleFrom',
  en: 'must be after visibleFrom',
  ru: 'должно быть позже visibleFrom',
};

/** `import.notADate` of `value`. */
export const notADate = (value: string): InEachLanguage => ({
  et: `"${value}" ei ole kuupäev (AAAA-KK-PP) ega RFC 3339 kuupäev koos kellaajaga`,
  en: `"${value}" is not a date (YYYY-MM-DD) or an RFC 3339 date-time`,
  ru: `«${value}» не является датой (ГГГГ-ММ-ДД) или датой и временем RFC 3339`,
});

/** `import.listedTwice` of `value`. */
export const listedTwice = (value: string): InEachLanguage => ({
  et: `"${value}" on loetelus kaks korda`,
  en: `"${value}" is listed twice`,
  ru: `«${value}» указано в списке дважды`,
});

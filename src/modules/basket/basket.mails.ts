import { formatEuros, isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { escapeHtml, linkUrl } from '../../infra/html.js';

// The basket reminder (basket-reminders.ts): text and HTML from the same paragraphs, in the client's
// language. It names the first lines with their quantity and the client's price now (the basket's
// pricing, as GET /basket shows it), says how many more there are, and links to the front end's
// basket page.

/** Lines a reminder names; the rest are counted. */
export const REMINDER_LINES = 5;

export interface BasketReminderFacts {
  language: string;
  storeName: string;
  basketUrl: string;
  /** The basket's orderable lines, in the basket's order. */
  lines: ReadonlyArray<{ name: string; quantity: number; unitPriceCents: number }>;
  /** Whether the prices include VAT (not for a wholesale client). */
  vatIncluded: boolean;
}

type Rendered = { subject: string; text: string; html: string };

export function basketReminderMail(facts: BasketReminderFacts): Rendered {
  const language: Language = isLanguage(facts.language) ? facts.language : 'et';
  const say = (key: MessageKey, params: Record<string, string | number> = {}) => translate(language, key, params);
  const store = { store: facts.storeName };
  const lines = facts.lines
    .slice(0, REMINDER_LINES)
    .map((line) =>
      say('basket.reminder.line', { name: line.name, quantity: line.quantity, price: formatEuros(line.unitPriceCents, language) }),
    );
  const more = facts.lines.length - REMINDER_LINES;
  if (more > 0) lines.push(say('basket.reminder.more', { count: more }));
  const before = [say('basket.reminder.body', store)];
  const after = [
    ...(facts.vatIncluded ? [] : [say('basket.reminder.vatExcluded')]),
    say('basket.reminder.link', { url: facts.basketUrl }),
    say('basket.reminder.why', store),
  ];
  const paragraphs = (texts: string[]) => texts.map((text) => `<p>${linkUrl(escapeHtml(text), facts.basketUrl)}</p>`).join('');
  const list = `<ul>${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`;
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${paragraphs(before)}${list}${paragraphs(after)}</body></html>`;
  const text = [...before, lines.map((line) => `- ${line}`).join('\n'), ...after].join('\n\n');
  return { subject: say('basket.reminder.subject', store), text, html };
}

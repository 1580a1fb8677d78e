import { isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';

// The back-in-stock mail: text and HTML from the same paragraphs, in the requester's language,
// naming the product and linking to it on the store's front end.

export interface BackInStockMailFacts {
  language: string;
  productName: string;
  productUrl: string;
  storeName: string;
}

export function backInStockMail(facts: BackInStockMailFacts): { subject: string; text: string; html: string } {
  const language: Language = isLanguage(facts.language) ? facts.language : 'et';
  const say = (key: MessageKey, params: Record<string, string> = {}) => translate(language, key, params);
  const names = { product: facts.productName, store: facts.storeName };
  const paragraphs = [
    say('backInStock.mail.body', names),
    say('backInStock.mail.link', { url: facts.productUrl }),
    say('backInStock.mail.once'),
  ];
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${paragraphs
    .map((paragraph) => `<p>${linkify(escapeHtml(paragraph), facts.productUrl)}</p>`)
    .join('')}</body></html>`;
  return { subject: say('backInStock.mail.subject', names), text: paragraphs.join('\n\n'), html };
}

/** The product URL as a link (the URL is escaped the same way in the paragraph and in the href). */
function linkify(escaped: string, url: string): string {
  const href = escapeHtml(url);
  return escaped.replace(href, `<a href="${href}">${href}</a>`);
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

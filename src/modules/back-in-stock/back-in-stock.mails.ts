import { isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { escapeHtml, linkUrl } from '../../infra/html.js';

// The back-in-stock mails: text and HTML from the same paragraphs, in the requester's language.
// The mail names the product and links to it on the store's front end; the confirmation mail of a
// guest's request links to the front end's confirmation page, which posts the token on.

export interface BackInStockMailFacts {
  language: string;
  productName: string;
  productUrl: string;
  storeName: string;
}

type Rendered = { subject: string; text: string; html: string };

function sayer(language: string) {
  const chosen: Language = isLanguage(language) ? language : 'et';
  return (key: MessageKey, params: Record<string, string> = {}) => translate(chosen, key, params);
}

function render(subject: string, paragraphs: string[], url: string): Rendered {
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${paragraphs
    .map((paragraph) => `<p>${linkUrl(escapeHtml(paragraph), url)}</p>`)
    .join('')}</body></html>`;
  return { subject, text: paragraphs.join('\n\n'), html };
}

export function backInStockMail(facts: BackInStockMailFacts): Rendered {
  const say = sayer(facts.language);
  const names = { product: facts.productName, store: facts.storeName };
  const paragraphs = [
    say('backInStock.mail.body', names),
    say('backInStock.mail.link', { url: facts.productUrl }),
    say('backInStock.mail.once'),
  ];
  return render(say('backInStock.mail.subject', names), paragraphs, facts.productUrl);
}

export interface ConfirmationMailFacts {
  language: string;
  productName: string;
  storeName: string;
  confirmUrl: string;
  hours: number;
}

/** Asks the address to confirm a guest's request; without it nothing more is mailed. */
export function backInStockConfirmationMail(facts: ConfirmationMailFacts): Rendered {
  const say = sayer(facts.language);
  const names = { product: facts.productName, store: facts.storeName };
  const paragraphs = [
    say('backInStock.confirm.body', names),
    say('backInStock.confirm.link', { url: facts.confirmUrl, hours: String(facts.hours) }),
    say('backInStock.confirm.ignore'),
  ];
  return render(say('backInStock.confirm.subject', names), paragraphs, facts.confirmUrl);
}

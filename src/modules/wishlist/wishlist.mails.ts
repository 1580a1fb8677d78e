import { formatEuros, isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { escapeHtml, linkUrl } from '../../infra/html.js';

// The wishlist offer mail: text and HTML from the same paragraphs, in the client's language. Each
// product links to its page on the store's front end (as back-in-stock's mail does); the mail links
// the wishlist page and the preferences page that turns these mails off.

export interface OfferMailProduct {
  name: string;
  oldCents: number;
  newCents: number;
  url: string;
}

export interface OfferMailFacts {
  language: string;
  storeName: string;
  products: OfferMailProduct[];
  wishlistUrl: string;
  preferencesUrl: string;
}

type Rendered = { subject: string; text: string; html: string };

export function wishlistOfferMail(facts: OfferMailFacts): Rendered {
  const language: Language = isLanguage(facts.language) ? facts.language : 'et';
  const say = (key: MessageKey, params: Record<string, string> = {}) => translate(language, key, params);
  const paragraphs: Array<{ text: string; url: string | null }> = [
    { text: say('wishlist.offers.body', { store: facts.storeName }), url: null },
    ...facts.products.map((product) => ({
      text: say('wishlist.offers.item', {
        product: product.name,
        old: formatEuros(product.oldCents, language),
        new: formatEuros(product.newCents, language),
        url: product.url,
      }),
      url: product.url,
    })),
    { text: say('wishlist.offers.wishlist', { url: facts.wishlistUrl }), url: facts.wishlistUrl },
    { text: say('wishlist.offers.stop', { url: facts.preferencesUrl }), url: facts.preferencesUrl },
  ];
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${paragraphs
    .map((paragraph) => `<p>${linkUrl(escapeHtml(paragraph.text), paragraph.url)}</p>`)
    .join('')}</body></html>`;
  return {
    subject: say('wishlist.offers.subject', { store: facts.storeName }),
    text: paragraphs.map((paragraph) => paragraph.text).join('\n\n'),
    html,
  };
}

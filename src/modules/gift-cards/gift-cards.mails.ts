import { lastLocalDay, localTime } from '../../infra/shop-time.js';
import { formatEuros, isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { escapeHtml } from '../../infra/html.js';
import { ERASED_MARKER, isErasedEmail } from '../../infra/personal-data.js';

// The virtual cards' mails, text and HTML from the same paragraphs: to the recipient on the
// delivery date (the code, the amount, the buyer's message, the expiry), and to the buyer when
// the card is issued (when it will be delivered, never the code) and when the recipient's address
// turned out not to exist (or was erased with its owner's data before the day).

export interface CardMailDetails {
  amountCents: number;
  expiresAt: number;
  deliverAt: number;
  recipientName: string;
  message: string;
  /** Who the card is from, as the buyer gave it; '' for the store. */
  senderName: string;
  language: string;
  storeName: string;
}

function render(details: CardMailDetails, subject: MessageKey, blocks: Array<[MessageKey, Record<string, string>] | string>) {
  const language: Language = isLanguage(details.language) ? details.language : 'et';
  const params = {
    amount: formatEuros(details.amountCents, language),
    // Days in Tallinn, where the card is spent: the last it works (its end is exclusive), and its delivery's.
    expires: lastLocalDay(details.expiresAt),
    date: localTime(details.deliverAt).date,
    name: details.recipientName,
    store: details.storeName,
    sender: details.senderName,
  };
  const paragraphs = blocks.map((block) => (typeof block === 'string' ? block : translate(language, block[0], { ...params, ...block[1] })));
  const text = paragraphs.join('\n\n');
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${paragraphs
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('')}</body></html>`;
  return { subject: translate(language, subject, params), text, html };
}

export function recipientMail(details: CardMailDetails & { code: string }) {
  const fromSender = details.senderName !== '';
  // A card sent on (gift-card redeliver) after its first recipient erased their data still carries the
  // erasure's placeholder for a name: the new recipient is greeted without one, not as "[erased]".
  const named = details.recipientName !== ERASED_MARKER;
  const intro = fromSender
    ? named
      ? 'giftCards.mail.recipientIntroFrom'
      : 'giftCards.mail.recipientIntroFromUnnamed'
    : named
      ? 'giftCards.mail.recipientIntro'
      : 'giftCards.mail.recipientIntroUnnamed';
  return render(details, fromSender ? 'giftCards.mail.recipientSubjectFrom' : 'giftCards.mail.recipientSubject', [
    [intro, {}],
    ...(details.message ? [details.message] : []),
    ['giftCards.mail.code', { code: details.code }],
    ['giftCards.mail.expires', {}],
  ]);
}

export function buyerMail(details: CardMailDetails) {
  return render(details, 'giftCards.mail.buyerSubject', [['giftCards.mail.buyerIntro', {}]]);
}

export function undeliverableMail(details: CardMailDetails & { recipientEmail: string }) {
  // The recipient erased their data before the day: their name and address are the erasure's placeholders,
  // which the buyer is not shown (nor told why: that was the recipient's to do).
  if (isErasedEmail(details.recipientEmail))
    return render(details, 'giftCards.mail.undeliverableErasedSubject', [
      ['giftCards.mail.undeliverableErasedIntro', {}],
      ['giftCards.mail.undeliverableNext', {}],
    ]);
  return render(details, 'giftCards.mail.undeliverableSubject', [
    ['giftCards.mail.undeliverableIntro', { email: details.recipientEmail }],
    ['giftCards.mail.undeliverableNext', {}],
  ]);
}

import { isLanguage, translate, type Language, type MessageKey } from '../../i18n/index.js';
import { escapeHtml } from '../../infra/html.js';

// The two mails of a contact-form message: to the office (reply-to the sender) and the
// acknowledgement to the sender. Anyone may type any address into the form, so the acknowledgement
// carries nothing the request wrote (no name, subject or text: the shop must not relay a stranger's
// words to an address under its own name) unless the address is proven the sender's: a logged-in
// customer writing from their account's confirmed login email gets a copy of what they wrote. Text
// and HTML from the same paragraphs; everything the sender wrote is escaped in the HTML.

export interface ContactMessage {
  storeCode: string;
  language: Language;
  name: string;
  email: string;
  subject: string;
  message: string;
  orderCode: string | null;
  /**
   * Whether the acknowledgement copies the name, subject and text: only when `email` is the
   * logged-in customer's confirmed login email. A job queued before the field existed has none and
   * is acknowledged bare (checked `=== true`).
   */
  copyToSender: boolean;
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

function render(subject: string, paragraphs: string[]): RenderedMail {
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${paragraphs
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`)
    .join('')}</body></html>`;
  return { subject, text: paragraphs.join('\n\n'), html };
}

export function officeMail(message: ContactMessage, storeName: string, language: string): RenderedMail {
  const say = sayer(language);
  const paragraphs = [
    say('contact.mail.officeIntro', { store: storeName }),
    say('contact.mail.from', { name: message.name, email: message.email }),
    ...(message.orderCode !== null ? [say('contact.mail.order', { order: message.orderCode })] : []),
    message.message,
  ];
  return render(say('contact.mail.officeSubject', { subject: message.subject }), paragraphs);
}

export function acknowledgementMail(message: ContactMessage, storeName: string): RenderedMail {
  const say = sayer(message.language);
  const paragraphs =
    message.copyToSender === true
      ? [
          say('contact.mail.ackIntro', { name: message.name, store: storeName }),
          say('contact.mail.ackCopy', { subject: message.subject }),
          message.message,
        ]
      : [say('contact.mail.ackBare', { store: storeName })];
  return render(say('contact.mail.ackSubject', { store: storeName }), paragraphs);
}

const sayer = (language: string) => {
  const chosen: Language = isLanguage(language) ? language : 'et';
  return (key: MessageKey, params: Record<string, string> = {}) => translate(chosen, key, params);
};

// The newsletter module's messages. English is the reference; every language has every key.

const en = {
  'newsletter.badToken': 'The confirmation link is invalid, already used or has expired.',
  'newsletter.badSignature': 'The unsubscribe link is invalid.',
};

const et: Record<keyof typeof en, string> = {
  'newsletter.badToken': 'Kinnituslink on vigane, juba kasutatud või aegunud.',
  'newsletter.badSignature': 'Uudiskirjast loobumise link on vigane.',
};

const ru: Record<keyof typeof en, string> = {
  'newsletter.badToken': 'Ссылка подтверждения недействительна, уже использована или устарела.',
  'newsletter.badSignature': 'Ссылка для отказа от рассылки недействительна.',
};

export const newsletterMessages = { en, et, ru };

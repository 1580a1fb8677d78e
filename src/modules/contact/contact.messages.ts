// Contact-form messages: the office's mail and the sender's acknowledgement (with a copy of what
// they wrote, or bare: see contact.mails.ts). English is the reference; every language has every
// key (the types make a missing one a compile error).

const en = {
  'contact.mail.officeSubject': 'Contact form: {subject}',
  'contact.mail.officeIntro': 'A message from the contact form of {store}.',
  'contact.mail.from': 'From: {name} <{email}>',
  'contact.mail.order': 'Order: {order}',
  'contact.mail.ackSubject': 'We received your message – {store}',
  'contact.mail.ackIntro': 'Dear {name}, thank you for writing to {store}. We will answer you at this address as soon as we can.',
  'contact.mail.ackCopy': 'Your message "{subject}":',
  'contact.mail.ackBare': 'Thank you for writing to {store}. We have received your message and will answer it as soon as we can.',
};

const et: Record<keyof typeof en, string> = {
  'contact.mail.officeSubject': 'Kontaktivorm: {subject}',
  'contact.mail.officeIntro': 'Sõnum poe {store} kontaktivormilt.',
  'contact.mail.from': 'Saatja: {name} <{email}>',
  'contact.mail.order': 'Tellimus: {order}',
  'contact.mail.ackSubject': 'Saime teie sõnumi kätte – {store}',
  'contact.mail.ackIntro': 'Lugupeetud {name}, aitäh, et kirjutasite poele {store}. Vastame teile sellel aadressil esimesel võimalusel.',
  'contact.mail.ackCopy': 'Teie sõnum "{subject}":',
  'contact.mail.ackBare': 'Aitäh, et kirjutasite poele {store}. Saime teie sõnumi kätte ja vastame sellele esimesel võimalusel.',
};

const ru: Record<keyof typeof en, string> = {
  'contact.mail.officeSubject': 'Форма обратной связи: {subject}',
  'contact.mail.officeIntro': 'Сообщение из формы обратной связи магазина {store}.',
  'contact.mail.from': 'От: {name} <{email}>',
  'contact.mail.order': 'Заказ: {order}',
  'contact.mail.ackSubject': 'Мы получили ваше сообщение – {store}',
  'contact.mail.ackIntro': 'Уважаемый(ая) {name}, спасибо, что написали в {store}. Мы ответим вам на этот адрес как можно скорее.',
  'contact.mail.ackCopy': 'Ваше сообщение «{subject}»:',
  'contact.mail.ackBare': 'Спасибо, что написали в {store}. Мы получили ваше сообщение и ответим на него как можно скорее.',
};

export const contactMessages = { en, et, ru };

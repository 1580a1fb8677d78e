// The session-action tracking messages.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'tracking.unknownProduct': 'There is no product with the code "{code}".',
};

const et: Record<keyof typeof en, string> = {
  'tracking.unknownProduct': 'Toodet koodiga "{code}" ei ole.',
};

const ru: Record<keyof typeof en, string> = {
  'tracking.unknownProduct': 'Товара с кодом "{code}" не существует.',
};

export const trackingMessages = { en, et, ru };

// Banner click-through statistics: the report's answers. English is the reference; every language
// has every key (the types make a missing one a compile error).

const en = {
  'ctr.toBeforeFrom': '"to" must not be before "from".',
  'ctr.rangeTooLong': 'A report covers at most {days} days.',
  'ctr.beforeRetention': 'Banner statistics are kept {days} days: "from" must be within them.',
  'ctr.unknownStore': 'There is no such store: WEB or WEB2.',
};

const et: Record<keyof typeof en, string> = {
  'ctr.toBeforeFrom': '"to" ei tohi olla enne "from"-i.',
  'ctr.rangeTooLong': 'Aruanne hõlmab kõige rohkem {days} päeva.',
  'ctr.beforeRetention': 'Bännerite statistikat hoitakse {days} päeva: "from" peab jääma nende sisse.',
  'ctr.unknownStore': 'Sellist poodi ei ole: WEB või WEB2.',
};

const ru: Record<keyof typeof en, string> = {
  'ctr.toBeforeFrom': '"to" не может быть раньше "from".',
  'ctr.rangeTooLong': 'Отчёт охватывает не более {days} дней.',
  'ctr.beforeRetention': 'Статистика баннеров хранится {days} дней: "from" должен быть в их пределах.',
  'ctr.unknownStore': 'Такого магазина нет: WEB или WEB2.',
};

export const ctrMessages = { en, et, ru };

// The operators' admin API messages: API keys and the NDJSON imports.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'admin.unauthorized': 'An operator API key is required: send Authorization: Bearer <key>.',
  'admin.unknownImportKind': 'Unknown import kind "{kind}". Use one of: {kinds}.',
  'admin.importRefused': 'The import was refused: {reason}',
  'admin.unsupportedMediaType': 'Unsupported content type "{type}"; send application/x-ndjson.',
  'admin.bodyTooLarge': 'The request body is larger than {limit} bytes; split the file.',
  'admin.requestAborted': 'The request was aborted before the import began; nothing was imported.',
};

const et: Record<keyof typeof en, string> = {
  'admin.unauthorized': 'Vaja on operaatori API-võtit: saatke Authorization: Bearer <võti>.',
  'admin.unknownImportKind': 'Tundmatu impordi liik "{kind}". Lubatud: {kinds}.',
  'admin.importRefused': 'Import keelduti: {reason}',
  'admin.unsupportedMediaType': 'Sisu tüüp "{type}" ei ole toetatud; saatke application/x-ndjson.',
  'admin.bodyTooLarge': 'Päringu sisu on suurem kui {limit} baiti; jagage fail osadeks.',
  'admin.requestAborted': 'Päring katkestati enne impordi algust; midagi ei imporditud.',
};

const ru: Record<keyof typeof en, string> = {
  'admin.unauthorized': 'Требуется API-ключ оператора: передайте Authorization: Bearer <ключ>.',
  'admin.unknownImportKind': 'Неизвестный вид импорта "{kind}". Допустимые: {kinds}.',
  'admin.importRefused': 'Импорт отклонён: {reason}',
  'admin.unsupportedMediaType': 'Тип содержимого "{type}" не поддерживается; отправьте application/x-ndjson.',
  'admin.bodyTooLarge': 'Тело запроса больше {limit} байт; разделите файл.',
  'admin.requestAborted': 'Запрос прерван до начала импорта; ничего не импортировано.',
};

export const adminMessages = { en, et, ru };

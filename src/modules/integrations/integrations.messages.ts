// The partner integrations' messages: supplier feeds and the event feed.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'integrations.badSignature':
    'The request is not signed with the supplier secret: send X-Timestamp and X-Signature (docs/integrations.md).',
  'integrations.timestampMissing': 'X-Timestamp is missing or not Unix seconds: sign each request with the current time.',
  'integrations.timestampTooOld': 'X-Timestamp is more than 5 minutes old: sign each request anew with the current time.',
  'integrations.timestampAhead': 'X-Timestamp is in the future: check the clock of the sending machine.',
  'integrations.replayed': 'This signed request was received before; sign each request anew.',
  'integrations.supplierDisabled': 'Feeds from this supplier are switched off; ask the shop to enable them.',
  'integrations.unknownFeedKind': 'Unknown feed "{kind}". Use one of: stock, prices, products.',
  'integrations.feedUnauthorized': 'A feed client token is required: send Authorization: Bearer <token>.',
  'integrations.badCursor': 'after must be a position the feed gave (a whole number of at least 0).',
};

const et: Record<keyof typeof en, string> = {
  'integrations.badSignature': 'Päring ei ole tarnija võtmega allkirjastatud: saatke X-Timestamp ja X-Signature (docs/integrations.md).',
  'integrations.timestampMissing': 'X-Timestamp puudub või ei ole Unixi sekundid: allkirjastage iga päring praeguse ajaga.',
  'integrations.timestampTooOld': 'X-Timestamp on üle 5 minuti vana: allkirjastage iga päring uuesti praeguse ajaga.',
  'integrations.timestampAhead': 'X-Timestamp on tulevikus: kontrollige saatva masina kella.',
  'integrations.replayed': 'See allkirjastatud päring on juba saabunud; allkirjastage iga päring uuesti.',
  'integrations.supplierDisabled': 'Selle tarnija andmevood on välja lülitatud; paluge poel need sisse lülitada.',
  'integrations.unknownFeedKind': 'Tundmatu andmevoog "{kind}". Lubatud: stock, prices, products.',
  'integrations.feedUnauthorized': 'Vaja on sündmustevoo kliendi võtit: saatke Authorization: Bearer <võti>.',
  'integrations.badCursor': 'after peab olema voo antud positsioon (täisarv, vähemalt 0).',
};

const ru: Record<keyof typeof en, string> = {
  'integrations.badSignature': 'Запрос не подписан ключом поставщика: передайте X-Timestamp и X-Signature (docs/integrations.md).',
  'integrations.timestampMissing': 'X-Timestamp отсутствует или не в секундах Unix: подписывайте каждый запрос текущим временем.',
  'integrations.timestampTooOld': 'X-Timestamp старше 5 минут: подпишите запрос заново текущим временем.',
  'integrations.timestampAhead': 'X-Timestamp в будущем: проверьте часы отправляющей машины.',
  'integrations.replayed': 'Этот подписанный запрос уже был получен; подписывайте каждый запрос заново.',
  'integrations.supplierDisabled': 'Потоки данных этого поставщика отключены; попросите магазин включить их.',
  'integrations.unknownFeedKind': 'Неизвестный поток "{kind}". Допустимые: stock, prices, products.',
  'integrations.feedUnauthorized': 'Требуется токен клиента потока событий: передайте Authorization: Bearer <токен>.',
  'integrations.badCursor': 'after должен быть позицией, выданной потоком (целое число не меньше 0).',
};

export const integrationsMessages = { en, et, ru };

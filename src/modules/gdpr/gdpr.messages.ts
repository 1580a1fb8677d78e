// The gdpr module's messages ("your data": export and erasure). English is the reference; every
// language has every key. The parts' refusals (open orders, the last master, a subscription charge at the gateway) are worded here too.

const en = {
  'gdpr.passwordRequired': 'Give your password to confirm that your data is to be erased.',
  'gdpr.wrongPassword': 'The password is not correct.',
  'gdpr.freshLoginRequired': 'For your safety, log in again and erase your data within 10 minutes of logging in.',
  'gdpr.openOrders': 'You have orders that are not yet delivered or cancelled; your data can be erased once they are.',
  'gdpr.lastMaster': 'You are the last master user of your company; make another user a master first.',
  'gdpr.subscriptionCharging': 'A subscription payment is being processed; your data can be erased once it is done, in a few minutes.',
};

const et: Record<keyof typeof en, string> = {
  'gdpr.passwordRequired': 'Andmete kustutamise kinnitamiseks sisestage oma parool.',
  'gdpr.wrongPassword': 'Parool ei ole õige.',
  'gdpr.freshLoginRequired': 'Teie turvalisuse huvides logige uuesti sisse ja kustutage andmed 10 minuti jooksul pärast sisselogimist.',
  'gdpr.openOrders': 'Teil on tellimusi, mis ei ole veel kätte toimetatud ega tühistatud; andmed saab kustutada, kui need on lõpetatud.',
  'gdpr.lastMaster': 'Olete oma ettevõtte viimane peakasutaja; tehke enne keegi teine peakasutajaks.',
  'gdpr.subscriptionCharging': 'Tellimuse makset töödeldakse; andmed saab kustutada, kui see on lõpetatud, mõne minuti pärast.',
};

const ru: Record<keyof typeof en, string> = {
  'gdpr.passwordRequired': 'Введите пароль, чтобы подтвердить удаление ваших данных.',
  'gdpr.wrongPassword': 'Неверный пароль.',
  'gdpr.freshLoginRequired': 'В целях безопасности войдите снова и удалите данные в течение 10 минут после входа.',
  'gdpr.openOrders': 'У вас есть ещё не доставленные или не отменённые заказы; данные можно удалить, когда они будут завершены.',
  'gdpr.lastMaster': 'Вы последний главный пользователь компании; сначала назначьте главным другого пользователя.',
  'gdpr.subscriptionCharging': 'Платёж по подписке обрабатывается; данные можно удалить, когда он завершится, через несколько минут.',
};

export const gdprMessages = { en, et, ru };

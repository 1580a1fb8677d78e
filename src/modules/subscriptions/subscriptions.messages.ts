// The subscriptions' messages. English is the reference; every language has every key.

const en = {
  'subscriptions.planNotFound': 'There is no subscription plan {id} in this store.',
  'subscriptions.notFound': 'There is no subscription {id}.',
  'subscriptions.cardNotFound': 'There is no saved card {id}.',
  'subscriptions.cardNeeded': 'Save a card first: subscriptions are paid with a saved card.',
  'subscriptions.alreadySubscribed': 'You already have a subscription of this kind.',
  'subscriptions.paymentDeclined': 'The card was declined.',
  'subscriptions.paymentPending': 'The payment is still being processed; the subscription starts when it is confirmed.',
  'subscriptions.gatewayUnavailable': 'Card payments are unavailable at the moment. Please try again later.',
  'subscriptions.notChangeable': 'A subscription in status {status} cannot be changed.',
  'subscriptions.otherFamily': 'A plan can only be switched to another plan of the same kind (audio or e-book).',
  'subscriptions.mail.greeting': 'Hello {name},',
  'subscriptions.mail.purchasedSubject': 'Your subscription {plan} has started',
  'subscriptions.mail.purchased': 'Thank you! Your subscription {plan} is active until {until} and renews every month.',
  'subscriptions.mail.cancelledSubject': 'Your subscription {plan} is cancelled',
  'subscriptions.mail.cancelled': 'Your subscription {plan} is cancelled. You can use it until {until}; nothing more will be charged.',
  'subscriptions.mail.billingFailedSubject': 'We could not renew your subscription {plan}',
  'subscriptions.mail.billingFailed':
    'We could not charge your saved card for {plan}. We will try again in the coming days; please check your card or save a new one.',
};

const et: Record<keyof typeof en, string> = {
  'subscriptions.planNotFound': 'Selles poes ei ole tellimuspaketti {id}.',
  'subscriptions.notFound': 'Tellimust {id} ei ole.',
  'subscriptions.cardNotFound': 'Salvestatud kaarti {id} ei ole.',
  'subscriptions.cardNeeded': 'Salvestage esmalt kaart: tellimuse eest makstakse salvestatud kaardiga.',
  'subscriptions.alreadySubscribed': 'Teil on juba sellist liiki tellimus.',
  'subscriptions.paymentDeclined': 'Kaardimakse lükati tagasi.',
  'subscriptions.paymentPending': 'Makse on veel töös; tellimus algab, kui see on kinnitatud.',
  'subscriptions.gatewayUnavailable': 'Kaardimaksed ei ole praegu võimalikud. Palun proovige hiljem uuesti.',
  'subscriptions.notChangeable': 'Olekus {status} tellimust ei saa muuta.',
  'subscriptions.otherFamily': 'Paketti saab vahetada ainult sama liiki (audio või e-raamat) paketi vastu.',
  'subscriptions.mail.greeting': 'Tere, {name}!',
  'subscriptions.mail.purchasedSubject': 'Teie tellimus {plan} on alanud',
  'subscriptions.mail.purchased': 'Aitäh! Teie tellimus {plan} kehtib kuni {until} ja pikeneb iga kuu.',
  'subscriptions.mail.cancelledSubject': 'Teie tellimus {plan} on tühistatud',
  'subscriptions.mail.cancelled': 'Teie tellimus {plan} on tühistatud. Saate seda kasutada kuni {until}; rohkem tasu ei võeta.',
  'subscriptions.mail.billingFailedSubject': 'Tellimuse {plan} pikendamine ebaõnnestus',
  'subscriptions.mail.billingFailed':
    'Me ei saanud teie salvestatud kaardilt tasu paketi {plan} eest. Proovime lähipäevil uuesti; palun kontrollige kaarti või salvestage uus.',
};

const ru: Record<keyof typeof en, string> = {
  'subscriptions.planNotFound': 'В этом магазине нет тарифа подписки {id}.',
  'subscriptions.notFound': 'Подписки {id} нет.',
  'subscriptions.cardNotFound': 'Сохранённой карты {id} нет.',
  'subscriptions.cardNeeded': 'Сначала сохраните карту: подписка оплачивается сохранённой картой.',
  'subscriptions.alreadySubscribed': 'У вас уже есть подписка этого вида.',
  'subscriptions.paymentDeclined': 'Оплата картой отклонена.',
  'subscriptions.paymentPending': 'Платёж ещё обрабатывается; подписка начнётся после подтверждения.',
  'subscriptions.gatewayUnavailable': 'Оплата картой сейчас недоступна. Попробуйте позже.',
  'subscriptions.notChangeable': 'Подписку в статусе {status} нельзя изменить.',
  'subscriptions.otherFamily': 'Тариф можно сменить только на тариф того же вида (аудио или электронные книги).',
  'subscriptions.mail.greeting': 'Здравствуйте, {name}!',
  'subscriptions.mail.purchasedSubject': 'Ваша подписка {plan} началась',
  'subscriptions.mail.purchased': 'Спасибо! Ваша подписка {plan} действует до {until} и продлевается каждый месяц.',
  'subscriptions.mail.cancelledSubject': 'Ваша подписка {plan} отменена',
  'subscriptions.mail.cancelled': 'Ваша подписка {plan} отменена. Ею можно пользоваться до {until}; больше оплата не списывается.',
  'subscriptions.mail.billingFailedSubject': 'Не удалось продлить подписку {plan}',
  'subscriptions.mail.billingFailed':
    'Не удалось списать оплату за {plan} с сохранённой карты. Мы попробуем снова в ближайшие дни; проверьте карту или сохраните новую.',
};

export const subscriptionsMessages = { en, et, ru };

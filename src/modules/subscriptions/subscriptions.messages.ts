// The subscriptions' messages. English is the reference; every language has every key.

const en = {
  'subscriptions.planNotFound': 'There is no subscription plan {id} in this store.',
  'subscriptions.notFound': 'There is no subscription {id}.',
  'subscriptions.cardNotFound': 'There is no saved card {id}.',
  'subscriptions.cardNeeded': 'Save a card first: subscriptions are paid with a saved card.',
  'subscriptions.cardUnusable': 'Saved card {id} can no longer be charged; please save your card again.',
  'subscriptions.alreadySubscribed': 'You already have a subscription of this kind.',
  'subscriptions.paymentDeclined': 'The card was declined.',
  'subscriptions.paymentPending':
    'The payment is still being processed; the new plan starts once it is confirmed, and we will e-mail you the outcome.',
  'subscriptions.trialTakenMeanwhile': "Another subscription of yours has just started this plan's trial; please try again.",
  'subscriptions.chargePending': 'A payment of this subscription is still being processed; try again once it is confirmed.',
  'subscriptions.chargeAwaitingGateway':
    'A payment of this subscription is waiting for the card payment provider to confirm it, which is checked every hour. If it is not confirmed within a day, please contact customer service.',
  'subscriptions.gatewayUnavailable': 'Card payments are unavailable at the moment. Please try again later.',
  'subscriptions.cardBeingStarted': 'Saving your card is being started; try again in a moment.',
  'subscriptions.notChangeable': 'A subscription in status {status} cannot be changed.',
  'subscriptions.cancelledAtPeriodEnd': 'This subscription is cancelled at the end of its period and can no longer be changed.',
  'subscriptions.otherFamily': 'A plan can only be switched to another plan of the same kind (audio or e-book).',
  'subscriptions.notActive': 'A subscription in status {status} gives nothing now.',
  'subscriptions.periodOver': "The subscription's period is over; it gives more once it is renewed.",
  'subscriptions.productNotFound': 'There is no product {id} in this store that a subscription can give.',
  'subscriptions.audiobooksOnly': 'This plan gives downloadable audiobooks only.',
  'subscriptions.ebooksOnly': 'This plan gives e-books only.',
  'subscriptions.alreadyTaken': 'You already have this product with this subscription.',
  'subscriptions.noCreditsLeft': 'No credits left this period: the plan gives {credits} a month. New credits come with the next period.',
  'subscriptions.shelfFull': 'Your shelf is full ({size} e-books). Take one off the shelf first.',
  'subscriptions.notTaken': 'Product {id} is not held by this subscription.',
  'subscriptions.audiobookKept': 'An audiobook stays with the subscription; it cannot be given back.',
  'subscriptions.mail.greeting': 'Hello {name},',
  'subscriptions.mail.purchasedSubject': 'Your subscription {plan} has started',
  'subscriptions.mail.purchased': 'Thank you! Your subscription {plan} is active until {until} and renews every month.',
  'subscriptions.mail.cancelledSubject': 'Your subscription {plan} is cancelled',
  'subscriptions.mail.cancelled': 'Your subscription {plan} is cancelled. You can use it until {until}; nothing more will be charged.',
  'subscriptions.mail.cancelledEnded': 'Your subscription {plan} is cancelled and has ended; nothing more will be charged.',
  'subscriptions.mail.billingFailedSubject': 'We could not renew your subscription {plan}',
  'subscriptions.mail.billingFailed':
    'We could not charge your saved card for {plan}. We will try again in the coming days; please check your card or save a new one.',
  'subscriptions.mail.lapsedSubject': 'Your subscription {plan} has ended',
  'subscriptions.mail.lapsed':
    'We could not charge your saved card for {plan}, nor on any of the retries since, so your subscription has ended and nothing more will be charged. What it gave can no longer be downloaded. To subscribe again, save a card that works and choose a plan in the shop.',
  'subscriptions.mail.startDeclinedSubject': 'Your subscription {plan} did not start',
  'subscriptions.mail.startDeclined':
    'Your bank declined the payment of {amount} for the first month of {plan}, so your subscription did not start. Should your bank take the payment after all, we will refund it to your card. You can subscribe again with another card.',
  'subscriptions.mail.upgradeAppliedSubject': 'Your upgrade to {plan} is now active',
  'subscriptions.mail.upgradeApplied':
    'Your bank approved the payment of {amount} for the upgrade to {plan} after all, so the upgrade is now active: your subscription is {plan} from now on.',
  'subscriptions.mail.upgradeConfirmed':
    'Your bank confirmed the payment of {amount} for the upgrade to {plan}, so the upgrade is now active: your subscription is {plan} from now on.',
  'subscriptions.mail.upgradeDeclinedSubject': 'Your upgrade to {plan} did not go through',
  'subscriptions.mail.upgradeDeclined':
    'Your bank declined the payment of {amount} for the upgrade to {plan}, so the upgrade did not go through. Your subscription stays {current}. Should your bank take the payment after all, we will e-mail you: the upgrade is then made, or the payment refunded.',
  'subscriptions.mail.refundedSubject': 'Your payment of {amount} was refunded',
  'subscriptions.mail.upgradeRefunded':
    'Your payment of {amount} for the upgrade to {plan} was refunded to your card, as the upgrade did not take place. Your bank may take a few days to show it.',
  'subscriptions.mail.startRefunded':
    'Your payment of {amount} for the first month of {plan} was refunded to your card before your subscription started with it, so your subscription did not start. Your bank may take a few days to show the refund. You can subscribe again in the shop.',
  'subscriptions.mail.renewalRefunded':
    'Your payment of {amount} for renewing {plan} was refunded to your card before it renewed your subscription, so your subscription is not renewed yet. We will try to charge your saved card again in the coming days. Your bank may take a few days to show the refund.',
  'subscriptions.mail.paymentRefunded':
    'Your payment of {amount} for the subscription {plan} was refunded to your card, as it was not needed. Your bank may take a few days to show it.',
  'subscriptions.mail.upgradeRefundedByHand':
    'Your payment of {amount} for the upgrade to {plan} was refunded to you, as the upgrade did not take place. Your bank may take a few days to show it.',
  'subscriptions.mail.paymentRefundedByHand':
    'Your payment of {amount} for the subscription {plan} was refunded to you, as it was not needed. Your bank may take a few days to show it.',
  'subscriptions.mail.chargedBackSubject': 'Your bank returned your payment of {amount}',
  'subscriptions.mail.chargedBack':
    'Your bank returned your payment of {amount} for {plan} to you, as it was disputed with them (a chargeback). The money is back with you, so we do not refund it ourselves, nor charge it again.',
  'subscriptions.mail.renewalChargedBackOtherCard':
    'Your bank returned your payment of {amount} for renewing {plan} to you, as it was disputed with them (a chargeback). The money is back with you, so we do not refund it ourselves, and we no longer charge the card it was made with: we have removed it from your saved cards. Your subscription is not renewed yet: we will try to charge the renewal to your saved card ending in {cardNow} on {retryOn}.',
  'subscriptions.mail.renewalChargedBackNoCard':
    'Your bank returned your payment of {amount} for renewing {plan} to you, as it was disputed with them (a chargeback). The money is back with you, so we do not refund it ourselves, and we no longer charge the card it was made with: we have removed it from your saved cards. Your subscription is not renewed yet, and no other saved card of yours can be charged for it: save a new card in your account before {retryOn}, when we try again, and that try charges it.',
  'subscriptions.mail.renewalChargedBackAlone':
    'Your bank returned your payment of {amount} for renewing {plan} to you, as it was disputed with them (a chargeback). The money is back with you, so we do not refund it ourselves, and we no longer charge the card it was made with: we have removed it from your saved cards.',
  'subscriptions.mail.cardRetiredSubject': 'We no longer charge your card ending in {lastFour} for {plan}',
  'subscriptions.mail.cardRetiredNoCard':
    'A payment made with your card ending in {lastFour} was disputed at your bank (a chargeback), so we no longer charge that card and have removed it from your saved cards. Your subscription {plan} stays as it is until {until}. To keep it after that, save a new card in your account before then: its renewal is charged to it.',
  'subscriptions.mail.cardRetiredRetrying':
    'A payment made with your card ending in {lastFour} was disputed at your bank (a chargeback), so we no longer charge that card and have removed it from your saved cards. The renewal of your subscription {plan} is still due: save a new card in your account before {retryOn}, when we try again, and that try charges it.',
  'subscriptions.mail.cardRetiredOtherCard':
    'A payment made with your card ending in {lastFour} was disputed at your bank (a chargeback), so we no longer charge that card and have removed it from your saved cards. Your subscription {plan} is renewed with your saved card ending in {cardNow} from now on.',
};

const et: Record<keyof typeof en, string> = {
  'subscriptions.planNotFound': 'Selles poes ei ole tellimuspaketti {id}.',
  'subscriptions.notFound': 'Tellimust {id} ei ole.',
  'subscriptions.cardNotFound': 'Salvestatud kaarti {id} ei ole.',
  'subscriptions.cardNeeded': 'Salvestage esmalt kaart: tellimuse eest makstakse salvestatud kaardiga.',
  'subscriptions.cardUnusable': 'Salvestatud kaardilt {id} ei saa enam makset võtta; palun salvestage kaart uuesti.',
  'subscriptions.alreadySubscribed': 'Teil on juba sellist liiki tellimus.',
  'subscriptions.paymentDeclined': 'Kaardimakse lükati tagasi.',
  'subscriptions.paymentPending':
    'Makse on veel töös; uus pakett hakkab kehtima, kui makse on kinnitatud, ja tulemusest saadame teile e-kirja.',
  'subscriptions.trialTakenMeanwhile': 'Teie teine tellimus alustas just selle paketi prooviperioodi; palun proovige uuesti.',
  'subscriptions.chargePending': 'Selle tellimuse makse on veel töös; proovige uuesti, kui see on kinnitatud.',
  'subscriptions.chargeAwaitingGateway':
    'Selle tellimuse makse ootab kaardimaksete pakkuja kinnitust, mida kontrollitakse iga tunni järel. Kui makset päeva jooksul ei kinnitata, võtke palun ühendust klienditeenindusega.',
  'subscriptions.gatewayUnavailable': 'Kaardimaksed ei ole praegu võimalikud. Palun proovige hiljem uuesti.',
  'subscriptions.cardBeingStarted': 'Kaardi salvestamist alustatakse; proovige hetke pärast uuesti.',
  'subscriptions.notChangeable': 'Olekus {status} tellimust ei saa muuta.',
  'subscriptions.cancelledAtPeriodEnd': 'See tellimus on perioodi lõpuga tühistatud ja seda ei saa enam muuta.',
  'subscriptions.otherFamily': 'Paketti saab vahetada ainult sama liiki (audio või e-raamat) paketi vastu.',
  'subscriptions.notActive': 'Olekus {status} tellimus ei anna praegu midagi.',
  'subscriptions.periodOver': 'Tellimuse periood on läbi; uut saab pärast selle pikendamist.',
  'subscriptions.productNotFound': 'Selles poes ei ole toodet {id}, mida tellimusega saaks võtta.',
  'subscriptions.audiobooksOnly': 'Selle paketiga saab ainult allalaaditavaid audioraamatuid.',
  'subscriptions.ebooksOnly': 'Selle paketiga saab ainult e-raamatuid.',
  'subscriptions.alreadyTaken': 'See toode on teil selle tellimusega juba olemas.',
  'subscriptions.noCreditsLeft':
    'Selle perioodi krediidid on otsas: pakett annab {credits} kuus. Uued krediidid tulevad järgmise perioodiga.',
  'subscriptions.shelfFull': 'Teie riiul on täis ({size} e-raamatut). Võtke enne üks riiulilt ära.',
  'subscriptions.notTaken': 'Toodet {id} selle tellimusega ei ole võetud.',
  'subscriptions.audiobookKept': 'Audioraamat jääb tellimuse juurde; seda ei saa tagastada.',
  'subscriptions.mail.greeting': 'Tere, {name}!',
  'subscriptions.mail.purchasedSubject': 'Teie tellimus {plan} on alanud',
  'subscriptions.mail.purchased': 'Aitäh! Teie tellimus {plan} kehtib kuni {until} ja pikeneb iga kuu.',
  'subscriptions.mail.cancelledSubject': 'Teie tellimus {plan} on tühistatud',
  'subscriptions.mail.cancelled': 'Teie tellimus {plan} on tühistatud. Saate seda kasutada kuni {until}; rohkem tasu ei võeta.',
  'subscriptions.mail.cancelledEnded': 'Teie tellimus {plan} on tühistatud ja lõppenud; rohkem tasu ei võeta.',
  'subscriptions.mail.billingFailedSubject': 'Tellimuse {plan} pikendamine ebaõnnestus',
  'subscriptions.mail.billingFailed':
    'Me ei saanud teie salvestatud kaardilt tasu paketi {plan} eest. Proovime lähipäevil uuesti; palun kontrollige kaarti või salvestage uus.',
  'subscriptions.mail.lapsedSubject': 'Teie tellimus {plan} on lõppenud',
  'subscriptions.mail.lapsed':
    'Me ei saanud teie salvestatud kaardilt tasu paketi {plan} eest ka korduskatsetel, nii et teie tellimus on lõppenud ja rohkem tasu ei võeta. Tellimusega saadut ei saa enam alla laadida. Uuesti tellimiseks salvestage töötav kaart ja valige poes pakett.',
  'subscriptions.mail.startDeclinedSubject': 'Teie tellimus {plan} ei alanud',
  'subscriptions.mail.startDeclined':
    'Teie pank lükkas tellimuse {plan} esimese kuu makse {amount} tagasi, nii et tellimus ei alanud. Kui pank makse siiski hiljem võtab, tagastame selle teie kaardile. Võite tellida uuesti mõne teise kaardiga.',
  'subscriptions.mail.upgradeAppliedSubject': 'Üleminek paketile {plan} on nüüd jõus',
  'subscriptions.mail.upgradeApplied':
    'Teie pank kinnitas siiski paketile {plan} ülemineku makse {amount}, nii et üleminek on nüüd jõus: teie tellimus on nüüdsest {plan}.',
  'subscriptions.mail.upgradeConfirmed':
    'Teie pank kinnitas paketile {plan} ülemineku makse {amount}, nii et üleminek on nüüd jõus: teie tellimus on nüüdsest {plan}.',
  'subscriptions.mail.upgradeDeclinedSubject': 'Üleminek paketile {plan} ei õnnestunud',
  'subscriptions.mail.upgradeDeclined':
    'Teie pank lükkas paketile {plan} ülemineku makse {amount} tagasi, nii et üleminekut ei toimunud. Teie tellimus on endiselt {current}. Kui pank makse siiski hiljem võtab, anname teile e-kirjaga teada: siis üleminek tehakse või makse tagastatakse.',
  'subscriptions.mail.refundedSubject': 'Teie makse {amount} on tagastatud',
  'subscriptions.mail.upgradeRefunded':
    'Teie makse {amount} paketile {plan} ülemineku eest on kaardile tagastatud, sest üleminekut ei toimunud. Pangal võib selle kajastamine võtta mõne päeva.',
  'subscriptions.mail.startRefunded':
    'Teie makse {amount} tellimuse {plan} esimese kuu eest on kaardile tagastatud enne, kui tellimus sellega algas, nii et tellimus ei alanud. Pangal võib tagastuse kajastamine võtta mõne päeva. Võite poes uuesti tellida.',
  'subscriptions.mail.renewalRefunded':
    'Teie makse {amount} tellimuse {plan} pikendamise eest on kaardile tagastatud enne, kui see tellimust pikendas, nii et tellimus ei ole veel pikendatud. Proovime salvestatud kaardilt tasu võtta lähipäevil uuesti. Pangal võib tagastuse kajastamine võtta mõne päeva.',
  'subscriptions.mail.paymentRefunded':
    'Teie makse {amount} tellimuse {plan} eest on kaardile tagastatud, sest seda ei olnud vaja. Pangal võib selle kajastamine võtta mõne päeva.',
  'subscriptions.mail.upgradeRefundedByHand':
    'Teie makse {amount} paketile {plan} ülemineku eest on teile tagastatud, sest üleminekut ei toimunud. Pangal võib selle kajastamine võtta mõne päeva.',
  'subscriptions.mail.paymentRefundedByHand':
    'Teie makse {amount} tellimuse {plan} eest on teile tagastatud, sest seda ei olnud vaja. Pangal võib selle kajastamine võtta mõne päeva.',
  'subscriptions.mail.chargedBackSubject': 'Teie pank tagastas teie makse {amount}',
  'subscriptions.mail.chargedBack':
    'Teie pank tagastas teile teie makse {amount} tellimuse {plan} eest, sest see vaidlustati pangas (tagasinõue). Raha on teil tagasi, nii et meie seda ise ei tagasta ega võta uuesti.',
  'subscriptions.mail.renewalChargedBackOtherCard':
    'Teie pank tagastas teile teie makse {amount} tellimuse {plan} pikendamise eest, sest see vaidlustati pangas (tagasinõue). Raha on teil tagasi, nii et meie seda ise ei tagasta, ja kaardilt, millega makse tehti, me enam tasu ei võta: eemaldasime selle teie salvestatud kaartide hulgast. Teie tellimus ei ole veel pikendatud: proovime pikendamise tasu võtta {retryOn} teie salvestatud kaardilt, mille number lõpeb {cardNow}.',
  'subscriptions.mail.renewalChargedBackNoCard':
    'Teie pank tagastas teile teie makse {amount} tellimuse {plan} pikendamise eest, sest see vaidlustati pangas (tagasinõue). Raha on teil tagasi, nii et meie seda ise ei tagasta, ja kaardilt, millega makse tehti, me enam tasu ei võta: eemaldasime selle teie salvestatud kaartide hulgast. Teie tellimus ei ole veel pikendatud ja ühelt teie teiselt salvestatud kaardilt ei saa selle eest tasu võtta: salvestage oma kontol uus kaart enne {retryOn}, kui proovime uuesti, ja siis võetakse tasu sellelt.',
  'subscriptions.mail.renewalChargedBackAlone':
    'Teie pank tagastas teile teie makse {amount} tellimuse {plan} pikendamise eest, sest see vaidlustati pangas (tagasinõue). Raha on teil tagasi, nii et meie seda ise ei tagasta, ja kaardilt, millega makse tehti, me enam tasu ei võta: eemaldasime selle teie salvestatud kaartide hulgast.',
  'subscriptions.mail.cardRetiredSubject': 'Me ei võta enam tasu tellimuse {plan} eest kaardilt, mille number lõpeb {lastFour}',
  'subscriptions.mail.cardRetiredNoCard':
    'Kaardiga, mille number lõpeb {lastFour}, tehtud makse vaidlustati teie pangas (tagasinõue), nii et me ei võta sellelt kaardilt enam tasu ja eemaldasime selle teie salvestatud kaartide hulgast. Teie tellimus {plan} kehtib nagu seni kuni {until}. Et see jätkuks ka pärast seda, salvestage enne seda oma kontol uus kaart: pikendamise tasu võetakse sellelt.',
  'subscriptions.mail.cardRetiredRetrying':
    'Kaardiga, mille number lõpeb {lastFour}, tehtud makse vaidlustati teie pangas (tagasinõue), nii et me ei võta sellelt kaardilt enam tasu ja eemaldasime selle teie salvestatud kaartide hulgast. Teie tellimuse {plan} pikendamine ootab endiselt tasu: salvestage oma kontol uus kaart enne {retryOn}, kui proovime uuesti, ja siis võetakse tasu sellelt.',
  'subscriptions.mail.cardRetiredOtherCard':
    'Kaardiga, mille number lõpeb {lastFour}, tehtud makse vaidlustati teie pangas (tagasinõue), nii et me ei võta sellelt kaardilt enam tasu ja eemaldasime selle teie salvestatud kaartide hulgast. Teie tellimuse {plan} pikendamise tasu võetakse nüüdsest teie salvestatud kaardilt, mille number lõpeb {cardNow}.',
};

const ru: Record<keyof typeof en, string> = {
  'subscriptions.planNotFound': 'В этом магазине нет тарифа подписки {id}.',
  'subscriptions.notFound': 'Подписки {id} нет.',
  'subscriptions.cardNotFound': 'Сохранённой карты {id} нет.',
  'subscriptions.cardNeeded': 'Сначала сохраните карту: подписка оплачивается сохранённой картой.',
  'subscriptions.cardUnusable': 'С сохранённой карты {id} больше нельзя списать оплату; сохраните карту заново.',
  'subscriptions.alreadySubscribed': 'У вас уже есть подписка этого вида.',
  'subscriptions.paymentDeclined': 'Оплата картой отклонена.',
  'subscriptions.paymentPending':
    'Платёж ещё обрабатывается; новый тариф начнёт действовать после подтверждения, о результате мы сообщим по электронной почте.',
  'subscriptions.trialTakenMeanwhile': 'Другая ваша подписка только что начала пробный период этого тарифа; повторите попытку.',
  'subscriptions.chargePending': 'Платёж по этой подписке ещё обрабатывается; повторите после его подтверждения.',
  'subscriptions.chargeAwaitingGateway':
    'Платёж по этой подписке ожидает подтверждения платёжного провайдера, оно проверяется каждый час. Если платёж не подтвердится в течение дня, обратитесь в службу поддержки.',
  'subscriptions.gatewayUnavailable': 'Оплата картой сейчас недоступна. Попробуйте позже.',
  'subscriptions.cardBeingStarted': 'Сохранение карты начинается; повторите чуть позже.',
  'subscriptions.notChangeable': 'Подписку в статусе {status} нельзя изменить.',
  'subscriptions.cancelledAtPeriodEnd': 'Эта подписка отменена с окончанием периода, её больше нельзя изменить.',
  'subscriptions.otherFamily': 'Тариф можно сменить только на тариф того же вида (аудио или электронные книги).',
  'subscriptions.notActive': 'Подписка в статусе {status} сейчас ничего не даёт.',
  'subscriptions.periodOver': 'Период подписки закончился; новое можно взять после её продления.',
  'subscriptions.productNotFound': 'В этом магазине нет товара {id}, который можно взять по подписке.',
  'subscriptions.audiobooksOnly': 'Этот тариф даёт только загружаемые аудиокниги.',
  'subscriptions.ebooksOnly': 'Этот тариф даёт только электронные книги.',
  'subscriptions.alreadyTaken': 'Этот товар у вас уже есть по этой подписке.',
  'subscriptions.noCreditsLeft':
    'Кредиты этого периода закончились: тариф даёт {credits} в месяц. Новые кредиты придут со следующим периодом.',
  'subscriptions.shelfFull': 'Ваша полка заполнена ({size} электронных книг). Сначала уберите одну с полки.',
  'subscriptions.notTaken': 'Товар {id} не взят по этой подписке.',
  'subscriptions.audiobookKept': 'Аудиокнига остаётся с подпиской; её нельзя вернуть.',
  'subscriptions.mail.greeting': 'Здравствуйте, {name}!',
  'subscriptions.mail.purchasedSubject': 'Ваша подписка {plan} началась',
  'subscriptions.mail.purchased': 'Спасибо! Ваша подписка {plan} действует до {until} и продлевается каждый месяц.',
  'subscriptions.mail.cancelledSubject': 'Ваша подписка {plan} отменена',
  'subscriptions.mail.cancelled': 'Ваша подписка {plan} отменена. Ею можно пользоваться до {until}; больше оплата не списывается.',
  'subscriptions.mail.cancelledEnded': 'Ваша подписка {plan} отменена и закончилась; больше оплата не списывается.',
  'subscriptions.mail.billingFailedSubject': 'Не удалось продлить подписку {plan}',
  'subscriptions.mail.billingFailed':
    'Не удалось списать оплату за {plan} с сохранённой карты. Мы попробуем снова в ближайшие дни; проверьте карту или сохраните новую.',
  'subscriptions.mail.lapsedSubject': 'Ваша подписка {plan} закончилась',
  'subscriptions.mail.lapsed':
    'Не удалось списать оплату за {plan} с сохранённой карты, в том числе и при повторных попытках, поэтому ваша подписка закончилась и больше оплата не списывается. Полученное по подписке больше нельзя загрузить. Чтобы подписаться снова, сохраните действующую карту и выберите тариф в магазине.',
  'subscriptions.mail.startDeclinedSubject': 'Ваша подписка {plan} не началась',
  'subscriptions.mail.startDeclined':
    'Ваш банк отклонил платёж {amount} за первый месяц подписки {plan}, поэтому подписка не началась. Если банк всё же спишет платёж, мы вернём его на вашу карту. Вы можете оформить подписку снова с другой картой.',
  'subscriptions.mail.upgradeAppliedSubject': 'Переход на тариф {plan} выполнен',
  'subscriptions.mail.upgradeApplied':
    'Ваш банк всё же подтвердил платёж {amount} за переход на тариф {plan}, и переход выполнен: теперь ваша подписка — {plan}.',
  'subscriptions.mail.upgradeConfirmed':
    'Ваш банк подтвердил платёж {amount} за переход на тариф {plan}, и переход выполнен: теперь ваша подписка — {plan}.',
  'subscriptions.mail.upgradeDeclinedSubject': 'Переход на тариф {plan} не выполнен',
  'subscriptions.mail.upgradeDeclined':
    'Ваш банк отклонил платёж {amount} за переход на тариф {plan}, поэтому переход не выполнен. Ваша подписка остаётся прежней: {current}. Если банк всё же спишет платёж, мы сообщим вам письмом: тогда переход будет выполнен или платёж возвращён.',
  'subscriptions.mail.refundedSubject': 'Ваш платёж {amount} возвращён',
  'subscriptions.mail.upgradeRefunded':
    'Ваш платёж {amount} за переход на тариф {plan} возвращён на карту, так как переход не состоялся. Банку может потребоваться несколько дней, чтобы отразить возврат.',
  'subscriptions.mail.startRefunded':
    'Ваш платёж {amount} за первый месяц подписки {plan} возвращён на карту до того, как подписка с ним началась, поэтому подписка не началась. Банку может потребоваться несколько дней, чтобы отразить возврат. Вы можете оформить подписку снова в магазине.',
  'subscriptions.mail.renewalRefunded':
    'Ваш платёж {amount} за продление подписки {plan} возвращён на карту до того, как подписка была им продлена, поэтому подписка пока не продлена. Мы попробуем снова списать оплату с сохранённой карты в ближайшие дни. Банку может потребоваться несколько дней, чтобы отразить возврат.',
  'subscriptions.mail.paymentRefunded':
    'Ваш платёж {amount} за подписку {plan} возвращён на карту, так как он не понадобился. Банку может потребоваться несколько дней, чтобы отразить возврат.',
  'subscriptions.mail.upgradeRefundedByHand':
    'Ваш платёж {amount} за переход на тариф {plan} возвращён вам, так как переход не состоялся. Банку может потребоваться несколько дней, чтобы отразить возврат.',
  'subscriptions.mail.paymentRefundedByHand':
    'Ваш платёж {amount} за подписку {plan} возвращён вам, так как он не понадобился. Банку может потребоваться несколько дней, чтобы отразить возврат.',
  'subscriptions.mail.chargedBackSubject': 'Ваш банк вернул ваш платёж {amount}',
  'subscriptions.mail.chargedBack':
    'Ваш банк вернул вам платёж {amount} за {plan}, так как он был оспорен в банке (чарджбэк). Деньги уже у вас, поэтому мы сами их не возвращаем и повторно не списываем.',
  'subscriptions.mail.renewalChargedBackOtherCard':
    'Ваш банк вернул вам платёж {amount} за продление подписки {plan}, так как он был оспорен в банке (чарджбэк). Деньги уже у вас, поэтому мы сами их не возвращаем, а с карты, которой был сделан платёж, больше не списываем оплату: мы удалили её из ваших сохранённых карт. Подписка пока не продлена: {retryOn} мы попробуем списать оплату за продление с сохранённой карты, оканчивающейся на {cardNow}.',
  'subscriptions.mail.renewalChargedBackNoCard':
    'Ваш банк вернул вам платёж {amount} за продление подписки {plan}, так как он был оспорен в банке (чарджбэк). Деньги уже у вас, поэтому мы сами их не возвращаем, а с карты, которой был сделан платёж, больше не списываем оплату: мы удалили её из ваших сохранённых карт. Подписка пока не продлена, и ни с одной другой вашей сохранённой карты оплату за неё списать нельзя: сохраните новую карту в своём аккаунте до {retryOn}, когда мы попробуем снова, и оплата будет списана с неё.',
  'subscriptions.mail.renewalChargedBackAlone':
    'Ваш банк вернул вам платёж {amount} за продление подписки {plan}, так как он был оспорен в банке (чарджбэк). Деньги уже у вас, поэтому мы сами их не возвращаем, а с карты, которой был сделан платёж, больше не списываем оплату: мы удалили её из ваших сохранённых карт.',
  'subscriptions.mail.cardRetiredSubject': 'Мы больше не списываем оплату за {plan} с карты, оканчивающейся на {lastFour}',
  'subscriptions.mail.cardRetiredNoCard':
    'Платёж картой, оканчивающейся на {lastFour}, был оспорен в вашем банке (чарджбэк), поэтому мы больше не списываем оплату с этой карты и удалили её из ваших сохранённых карт. Ваша подписка {plan} действует как прежде до {until}. Чтобы она продолжилась и после, сохраните до этого новую карту в своём аккаунте: продление будет оплачено с неё.',
  'subscriptions.mail.cardRetiredRetrying':
    'Платёж картой, оканчивающейся на {lastFour}, был оспорен в вашем банке (чарджбэк), поэтому мы больше не списываем оплату с этой карты и удалили её из ваших сохранённых карт. Продление вашей подписки {plan} всё ещё ожидает оплаты: сохраните новую карту в своём аккаунте до {retryOn}, когда мы попробуем снова, и оплата будет списана с неё.',
  'subscriptions.mail.cardRetiredOtherCard':
    'Платёж картой, оканчивающейся на {lastFour}, был оспорен в вашем банке (чарджбэк), поэтому мы больше не списываем оплату с этой карты и удалили её из ваших сохранённых карт. Продление вашей подписки {plan} теперь оплачивается с сохранённой карты, оканчивающейся на {cardNow}.',
};

export const subscriptionsMessages = { en, et, ru };

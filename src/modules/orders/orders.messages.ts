// The orders module's messages: operators' order endpoints, the order-confirmation, cancellation, pickup and feedback-request mails.
// English is the reference; every language has every key (the types make a missing one a compile error).

const en = {
  'orders.notFound': 'There is no order with the code "{code}".',
  'orders.pageWithCursor': 'A walk by "after" goes on from its cursor: leave "page" out.',
  'orders.notPaid': 'Order {code} is {status}: it has not been paid, so the back office cannot have it.',
  'orders.reviveCardsShort':
    'Order {code} stays FAILED: its gift cards got their share back when it failed and were spent since, so they no longer pay it. Nothing was changed; do not ship it until the shop settles it.',
  'orders.reviveBoughtCardsVoided':
    'Order {code} stays FAILED: the gift cards it bought were voided when it failed and cannot be given back. Nothing was changed; do not ship it until the shop settles it.',
  'orders.noSettledPayment': 'Order {code} has no settled payment to refund.',
  'orders.paymentNotSettled':
    'Order {code} was paid through "{gateway}", but the shop does not have that payment as settled: nothing was refunded. Refund it at the gateway.',
  'orders.refundTooLarge': 'The refund of {amount} EUR is more than is left of the payment ({left} EUR).',
  'orders.refundTooLargeSpent':
    'The refund of {amount} EUR is more than can be given back ({left} EUR): {spent} EUR of the gift cards this order bought was spent already, and spent money is not refunded.',
  'orders.refundKeyReused':
    'This Idempotency-Key was sent with another refund of this payment ({amount} EUR): nothing was sent. A new refund needs a key of its own.',
  'orders.refundInProgress':
    'A refund of {amount} EUR of this payment is at the payment gateway now: nothing was sent. Try again in a minute; the same request then answers what became of it.',
  'orders.giftCardRefundWhole':
    'The order was paid by gift cards only: its refund gives them back all they paid ({left} EUR), leave the amount out.',
  'orders.gatewayOff': 'The payment gateway "{gateway}" of order {code} is not configured.',
  'orders.gatewayUnavailable': 'The payment gateway "{gateway}" could not be reached; try again later.',
  'orders.gatewayRefused': 'The payment gateway "{gateway}" refused the refund.',
  'orders.gatewayRefusedShop':
    'The payment gateway "{gateway}" refused the shop\'s own request (its API credentials or address): put the gateway\'s settings right and try again; until then whether the refund was made is not known.',
  'orders.cents': 'must be a sum in euros with at most two decimals',
  'orders.mail.subject': 'Your order {code} – {store}',
  'orders.mail.greeting': 'Hello {name},',
  'orders.mail.buyer': 'Thank you for your order {code}. We have received it and are preparing it.',
  'orders.mail.buyerNothingShipped':
    'Thank you for your order {code}. We have received it. Its items are digital: nothing is sent by post.',
  'orders.mail.receiver': '{buyer} placed order {code} in {store} to be delivered to you. We are preparing it.',
  'orders.mail.receiverNothingShipped': '{buyer} placed order {code} in {store} for you.',
  'orders.mail.receiverDownloads': '{buyer} has the e-books and audiobooks in it to download and hand on to you: they are not sent to you.',
  'orders.mail.receiverDownloadsMixed':
    '{buyer} has the e-books and audiobooks in it to download and hand on to you: only the rest is delivered to you.',
  'orders.mail.receiverTold':
    'We have told {receiver} ({email}) about this order, and that its e-books and audiobooks are yours to download and hand on to them.',
  'orders.mail.receiverGift':
    '{buyer} gave you the e-books and audiobooks in it: download them on their page, at the link below, until {until}.',
  'orders.mail.receiverGiftMixed':
    '{buyer} gave you the e-books and audiobooks in it: download them on their page, at the link below, until {until}. The rest is delivered to you.',
  'orders.mail.receiverToldGift':
    'We have told {receiver} ({email}) about this order and sent them a link to download its e-books and audiobooks. You can download them too: the downloads of each count for you both.',
  'orders.mail.giftDownloadsPage': 'Your e-books and audiobooks: {url}',
  'orders.giftDownloadsInvalid': 'This link to e-books and audiobooks is not valid.',
  'orders.giftDownloadsExpired': 'This link to e-books and audiobooks ended on {date}.',
  'orders.giftDownloadsEnded': 'The e-books and audiobooks of this link are no longer given to download.',
  'orders.mail.lines': 'Ordered items:',
  'orders.mail.line': '{title} × {quantity}: {total}',
  'orders.mail.subtotal': 'Items: {amount}',
  'orders.mail.discount': 'Discount: −{amount}',
  'orders.mail.delivery': 'Delivery ({method}): {amount}',
  'orders.mail.vatIncluded': 'Including VAT: {amount}',
  'orders.mail.vatAdded': 'VAT: {amount}',
  'orders.mail.giftCards': 'Gift cards: −{amount}',
  'orders.mail.total': 'Total: {amount}',
  'orders.mail.deliverTo': 'Delivery to: {details}',
  'orders.mail.downloads': 'Your e-books and audiobooks can be downloaded on your order’s page, at the link below.',
  'orders.mail.downloadsInAccount':
    'Your e-books and audiobooks can be downloaded in your account (Downloads), and on your order’s page at the link below.',
  'orders.mail.orderPage': 'See your order and how it is getting on: {url}',
  'orders.mail.code': 'Your order code is {code}; please give it when you contact us.',
  'orders.cancelled.subject': 'Your order {code} is cancelled – {store}',
  'orders.cancelled.paid': 'Your order {code} has been cancelled, and what you paid for it has been returned.',
  'orders.mail.backToPayment':
    '{amount} goes back to the card or bank account you paid with; it can take a few working days to show there.',
  'orders.cancelled.toGiftCards': '{amount} is back on the gift cards you paid with.',
  'orders.cancelled.paidOffline': 'Your order {code} has been cancelled.',
  'orders.cancelled.offlineNotReturned':
    'The {amount} to be paid by {method} is not returned by this cancellation: if you have paid it already, please contact us to have it returned.',
  'orders.cancelled.unpaid':
    'Your order {code} has been cancelled because it was not paid in time. Nothing was charged, and its items are no longer reserved for you.',
  'orders.cancelled.heldOnGiftCards': 'The {amount} it held on your gift cards is free on them again.',
  'orders.refunded.subject': 'A refund for your order {code} – {store}',
  'orders.refunded.part': 'We have refunded part of what you paid for your order {code}.',
  'orders.refunded.whole': 'We have refunded what you paid for your order {code}.',
  'orders.refunded.inAll': 'In all, {amount} of the {paid} you paid has now been refunded.',
  'orders.mail.boughtCardsTakenOff':
    '{amount} of it is what was left on the gift cards bought with this order: that much has been taken off them.',
  'orders.mail.boughtCardsSpent': 'The {amount} spent from the gift cards bought with this order is not refunded.',
  'orders.cancelled.paidBoughtCardsSpent':
    'Your order {code} has been cancelled, and what you paid for it has been returned, except what was spent from the gift cards it bought.',
  'orders.notPickup': 'Order {code} is delivered by "{delivery}": it is not collected in a shop.',
  'orders.pickupNotPaid': 'Order {code} is {status}: only a paid order (or one to be paid in the shop) is handed over.',
  'orders.pickupCollected': 'Order {code} has been collected already.',
  'orders.collectByPast': 'must be today or later (a date in Tallinn)',
  'orders.collectByFar': 'must be at most {days} days from today',
  'orders.pickup.readySubject': 'Your order {code} is ready for pickup – {store}',
  'orders.pickup.reminderSubject': 'Your order {code} is waiting for you until {date} – {store}',
  'orders.pickup.ready': 'Your order {code} is ready for pickup at {shop}.',
  'orders.pickup.reminder': 'Your order {code} is still waiting for you at {shop}.',
  'orders.pickup.address': 'Address: {address}',
  'orders.pickup.hours': 'Opening hours: {hours}',
  'orders.pickup.collectBy': 'We keep it for you until the end of {date}.',
  'orders.pickup.code': 'Please give the order code {code} when you collect it.',
  'orders.feedback.subject': 'How did you like them? Your order {code} – {store}',
  'orders.feedback.intro':
    'Thank you for your order {code}. Would you tell other readers what you think of what you bought? A few stars are enough:',
  'orders.feedback.line': '{title}: {url}',
  'orders.feedback.why':
    'You get this mail because you agreed to marketing mail from {store}; unsubscribe with your mail program or in your profile.',
};

const et: Record<keyof typeof en, string> = {
  'orders.notFound': 'Tellimust koodiga "{code}" ei ole.',
  'orders.pageWithCursor': 'Läbimine "after"-iga jätkab oma kursorist: jätke "page" ära.',
  'orders.notPaid': 'Tellimus {code} on olekus {status}: see ei ole makstud, nii et tagakontoril ei saa seda olla.',
  'orders.reviveCardsShort':
    'Tellimus {code} jääb olekusse FAILED: selle kinkekaardid said nurjumisel oma osa tagasi ja on sellest ajast kulutatud, nii et need ei maksa seda enam. Midagi ei muudetud; ärge saatke seda enne, kui pood on selle korda teinud.',
  'orders.reviveBoughtCardsVoided':
    'Tellimus {code} jääb olekusse FAILED: selle ostetud kinkekaardid tühistati nurjumisel ja neid ei saa tagasi anda. Midagi ei muudetud; ärge saatke seda enne, kui pood on selle korda teinud.',
  'orders.noSettledPayment': 'Tellimusel {code} ei ole laekunud makset, mida tagastada.',
  'orders.paymentNotSettled':
    'Tellimus {code} on makstud makseviisiga "{gateway}", kuid pood ei tea seda makset laekununa: midagi ei tagastatud. Tagastage see makseviisi kaudu.',
  'orders.refundTooLarge': 'Tagastus {amount} EUR on suurem kui makse järelejäänud osa ({left} EUR).',
  'orders.refundTooLargeSpent':
    'Tagastus {amount} EUR on suurem kui tagastada saab ({left} EUR): tellimusega ostetud kinkekaartidelt on {spent} EUR juba kasutatud ja kasutatud raha ei tagastata.',
  'orders.refundKeyReused':
    'Seda Idempotency-Key väärtust kasutati selle makse teise tagastuse jaoks ({amount} EUR): midagi ei saadetud. Uus tagastus vajab oma võtit.',
  'orders.refundInProgress':
    'Selle makse tagastus {amount} EUR on praegu makseteenuses: midagi ei saadetud. Proovige minuti pärast uuesti; sama päring vastab siis, mis sellest sai.',
  'orders.giftCardRefundWhole':
    'Tellimus on makstud ainult kinkekaartidega: tagastus annab neile tagasi kogu makstud summa ({left} EUR), jätke summa märkimata.',
  'orders.gatewayOff': 'Tellimuse {code} makseviis "{gateway}" ei ole seadistatud.',
  'orders.gatewayUnavailable': 'Makseteenus "{gateway}" ei ole kättesaadav; proovige hiljem uuesti.',
  'orders.gatewayRefused': 'Makseteenus "{gateway}" keeldus tagastusest.',
  'orders.gatewayRefusedShop':
    'Makseteenus "{gateway}" keeldus poe enda päringust (API kasutaja, võti või aadress): parandage makseteenuse seadistus ja proovige uuesti; seni pole teada, kas tagastus tehti.',
  'orders.cents': 'peab olema summa eurodes, kuni kahe komakohaga',
  'orders.mail.subject': 'Teie tellimus {code} – {store}',
  'orders.mail.greeting': 'Tere, {name}!',
  'orders.mail.buyer': 'Aitäh tellimuse {code} eest. Oleme selle kätte saanud ja valmistame seda ette.',
  'orders.mail.buyerNothingShipped':
    'Aitäh tellimuse {code} eest. Oleme selle kätte saanud. Selle tooted on digitaalsed: postiga ei saadeta midagi.',
  'orders.mail.receiver': '{buyer} esitas poes {store} tellimuse {code}, mis tuuakse teile. Valmistame seda ette.',
  'orders.mail.receiverNothingShipped': '{buyer} esitas poes {store} teile tellimuse {code}.',
  'orders.mail.receiverDownloads':
    'Selles olevad e-raamatud ja audioraamatud laadib alla {buyer} ja annab need teile edasi: teile neid ei saadeta.',
  'orders.mail.receiverDownloadsMixed':
    'Selles olevad e-raamatud ja audioraamatud laadib alla {buyer} ja annab need teile edasi: teile tuuakse ainult ülejäänu.',
  'orders.mail.receiverTold':
    'Andsime tellimusest teada ka saajale {receiver} ({email}) ning ütlesime, et selle e-raamatud ja audioraamatud laadite alla teie ja annate need talle edasi.',
  'orders.mail.receiverGift':
    '{buyer} kinkis teile selles olevad e-raamatud ja audioraamatud: laadige need alla nende lehelt allpool oleva lingi kaudu kuni {until}.',
  'orders.mail.receiverGiftMixed':
    '{buyer} kinkis teile selles olevad e-raamatud ja audioraamatud: laadige need alla nende lehelt allpool oleva lingi kaudu kuni {until}. Ülejäänu tuuakse teile.',
  'orders.mail.receiverToldGift':
    'Andsime tellimusest teada ka saajale {receiver} ({email}) ja saatsime talle lingi selle e-raamatute ja audioraamatute allalaadimiseks. Saate neid ka ise alla laadida: iga raamatu allalaadimised arvestatakse teile mõlemale kokku.',
  'orders.mail.giftDownloadsPage': 'Teie e-raamatud ja audioraamatud: {url}',
  'orders.giftDownloadsInvalid': 'See e-raamatute ja audioraamatute link ei kehti.',
  'orders.giftDownloadsExpired': 'See e-raamatute ja audioraamatute link kehtis kuni {date}.',
  'orders.giftDownloadsEnded': 'Selle lingi e-raamatuid ja audioraamatuid ei saa enam alla laadida.',
  'orders.mail.lines': 'Tellitud tooted:',
  'orders.mail.line': '{title} × {quantity}: {total}',
  'orders.mail.subtotal': 'Tooted: {amount}',
  'orders.mail.discount': 'Allahindlus: −{amount}',
  'orders.mail.delivery': 'Tarne ({method}): {amount}',
  'orders.mail.vatIncluded': 'Sh käibemaks: {amount}',
  'orders.mail.vatAdded': 'Käibemaks: {amount}',
  'orders.mail.giftCards': 'Kinkekaardid: −{amount}',
  'orders.mail.total': 'Kokku: {amount}',
  'orders.mail.deliverTo': 'Tarneaadress: {details}',
  'orders.mail.downloads': 'Teie e-raamatud ja audioraamatud saate alla laadida tellimuse lehelt, allpool oleva lingi kaudu.',
  'orders.mail.downloadsInAccount':
    'Teie e-raamatud ja audioraamatud saate alla laadida oma kontolt (Allalaadimised) ja tellimuse lehelt allpool oleva lingi kaudu.',
  'orders.mail.orderPage': 'Oma tellimust ja selle käiku näete siin: {url}',
  'orders.mail.code': 'Teie tellimuse kood on {code}; palun märkige see meiega ühendust võttes.',
  'orders.cancelled.subject': 'Teie tellimus {code} on tühistatud – {store}',
  'orders.cancelled.paid': 'Teie tellimus {code} on tühistatud ja selle eest makstu on tagastatud.',
  'orders.mail.backToPayment':
    '{amount} läheb tagasi kaardile või pangakontole, millega maksite; selle laekumine võib võtta mõne tööpäeva.',
  'orders.cancelled.toGiftCards': '{amount} on tagasi kinkekaartidel, millega maksite.',
  'orders.cancelled.paidOffline': 'Teie tellimus {code} on tühistatud.',
  'orders.cancelled.offlineNotReturned':
    'Makseviisiga „{method}” tasumisele kuuluvat summat {amount} see tühistamine ei tagasta: kui olete selle juba tasunud, võtke tagastamiseks meiega ühendust.',
  'orders.cancelled.unpaid':
    'Teie tellimus {code} on tühistatud, sest seda ei makstud õigel ajal. Teilt ei võetud raha ja selle tooteid ei hoita enam teile.',
  'orders.cancelled.heldOnGiftCards': 'Teie kinkekaartidelt selle jaoks kinni hoitud {amount} on taas kasutatav.',
  'orders.refunded.subject': 'Tagasimakse teie tellimuse {code} eest – {store}',
  'orders.refunded.part': 'Tagastasime osa teie tellimuse {code} eest makstust.',
  'orders.refunded.whole': 'Tagastasime teie tellimuse {code} eest makstu.',
  'orders.refunded.inAll': 'Kokku oleme nüüd tagastanud {amount} makstud {paid} summast.',
  'orders.mail.boughtCardsTakenOff':
    '{amount} sellest on see, mis oli alles selle tellimusega ostetud kinkekaartidel: nii palju on neilt maha võetud.',
  'orders.mail.boughtCardsSpent': 'Selle tellimusega ostetud kinkekaartidelt kasutatud {amount} ei tagastata.',
  'orders.cancelled.paidBoughtCardsSpent':
    'Teie tellimus {code} on tühistatud ja selle eest makstu on tagastatud, välja arvatud see, mis selle tellimusega ostetud kinkekaartidelt kasutati.',
  'orders.notPickup': 'Tellimus {code} toimetatakse viisil "{delivery}": seda ei võeta poest.',
  'orders.pickupNotPaid': 'Tellimus {code} on olekus {status}: välja antakse ainult makstud (või poes makstav) tellimus.',
  'orders.pickupCollected': 'Tellimus {code} on juba kätte saadud.',
  'orders.collectByPast': 'peab olema täna või hiljem (kuupäev Tallinna aja järgi)',
  'orders.collectByFar': 'võib olla kõige rohkem {days} päeva pärast tänast',
  'orders.pickup.readySubject': 'Teie tellimus {code} on järeletulemiseks valmis – {store}',
  'orders.pickup.reminderSubject': 'Teie tellimus {code} ootab teid kuni {date} – {store}',
  'orders.pickup.ready': 'Teie tellimus {code} on valmis ja ootab teid: {shop}.',
  'orders.pickup.reminder': 'Teie tellimus {code} ootab teid endiselt: {shop}.',
  'orders.pickup.address': 'Aadress: {address}',
  'orders.pickup.hours': 'Lahtiolekuajad: {hours}',
  'orders.pickup.collectBy': 'Hoiame seda teie jaoks kuni {date} lõpuni.',
  'orders.pickup.code': 'Järele tulles öelge palun tellimuse kood {code}.',
  'orders.feedback.subject': 'Kuidas meeldis? Teie tellimus {code} – {store}',
  'orders.feedback.intro': 'Aitäh tellimuse {code} eest! Kas jagaksite teiste lugejatega, mida ostetust arvate? Piisab mõnest tärnist:',
  'orders.feedback.line': '{title}: {url}',
  'orders.feedback.why':
    'Saate selle kirja, sest nõustusite poe {store} turunduskirjadega; loobuda saate oma e-posti programmis või profiilis.',
};

const ru: Record<keyof typeof en, string> = {
  'orders.notFound': 'Заказа с кодом "{code}" нет.',
  'orders.pageWithCursor': 'Обход по "after" продолжается с его курсора: не указывайте "page".',
  'orders.notPaid': 'Заказ {code} в состоянии {status}: он не оплачен, поэтому его не может быть в бэк-офисе.',
  'orders.reviveCardsShort':
    'Заказ {code} остаётся в состоянии FAILED: его подарочные карты получили свою долю обратно при сбое и с тех пор потрачены, поэтому больше его не оплачивают. Ничего не изменено; не отправляйте его, пока магазин не уладит это.',
  'orders.reviveBoughtCardsVoided':
    'Заказ {code} остаётся в состоянии FAILED: купленные в нём подарочные карты аннулированы при сбое и не могут быть возвращены. Ничего не изменено; не отправляйте его, пока магазин не уладит это.',
  'orders.noSettledPayment': 'У заказа {code} нет поступившего платежа для возврата.',
  'orders.paymentNotSettled':
    'Заказ {code} оплачен через "{gateway}", но магазин не знает этот платёж как поступивший: ничего не возвращено. Верните его через платёжный шлюз.',
  'orders.refundTooLarge': 'Возврат {amount} EUR больше оставшейся части платежа ({left} EUR).',
  'orders.refundTooLargeSpent':
    'Возврат {amount} EUR больше того, что можно вернуть ({left} EUR): с подарочных карт этого заказа уже потрачено {spent} EUR, потраченные деньги не возвращаются.',
  'orders.refundKeyReused':
    'Этот Idempotency-Key уже использован для другого возврата по этому платежу ({amount} EUR): ничего не отправлено. Новому возврату нужен свой ключ.',
  'orders.refundInProgress':
    'Возврат {amount} EUR по этому платежу сейчас в платёжном шлюзе: ничего не отправлено. Повторите через минуту; тот же запрос ответит, чем он закончился.',
  'orders.giftCardRefundWhole':
    'Заказ оплачен только подарочными картами: возврат возвращает им всю оплаченную сумму ({left} EUR), не указывайте сумму.',
  'orders.gatewayOff': 'Платёжный шлюз "{gateway}" заказа {code} не настроен.',
  'orders.gatewayUnavailable': 'Платёжный шлюз "{gateway}" недоступен; повторите попытку позже.',
  'orders.gatewayRefused': 'Платёжный шлюз "{gateway}" отклонил возврат.',
  'orders.gatewayRefusedShop':
    'Платёжный шлюз "{gateway}" отклонил запрос самого магазина (учётные данные API или адрес): исправьте настройки шлюза и повторите попытку; до тех пор неизвестно, был ли сделан возврат.',
  'orders.cents': 'должно быть суммой в евро не более чем с двумя знаками после запятой',
  'orders.mail.subject': 'Ваш заказ {code} – {store}',
  'orders.mail.greeting': 'Здравствуйте, {name}!',
  'orders.mail.buyer': 'Спасибо за заказ {code}. Мы получили его и уже собираем.',
  'orders.mail.buyerNothingShipped': 'Спасибо за заказ {code}. Мы получили его. Товары в нём цифровые: почтой ничего не отправляется.',
  'orders.mail.receiver': '{buyer} оформил(а) в {store} заказ {code} с доставкой вам. Мы уже собираем его.',
  'orders.mail.receiverNothingShipped': '{buyer} оформил(а) для вас в {store} заказ {code}.',
  'orders.mail.receiverDownloads': 'Электронные и аудиокниги из него скачивает {buyer} и передаёт их вам: вам они не отправляются.',
  'orders.mail.receiverDownloadsMixed':
    'Электронные и аудиокниги из него скачивает {buyer} и передаёт их вам: вам доставляется только остальное.',
  'orders.mail.receiverTold':
    'Мы сообщили о заказе получателю {receiver} ({email}) и о том, что электронные и аудиокниги из него скачиваете вы и передаёте их сами.',
  'orders.mail.receiverGift': '{buyer} дарит вам электронные и аудиокниги из него: скачайте их на их странице по ссылке ниже до {until}.',
  'orders.mail.receiverGiftMixed':
    '{buyer} дарит вам электронные и аудиокниги из него: скачайте их на их странице по ссылке ниже до {until}. Остальное доставят вам.',
  'orders.mail.receiverToldGift':
    'Мы сообщили о заказе получателю {receiver} ({email}) и отправили ссылку для скачивания его электронных и аудиокниг. Вы тоже можете их скачать: скачивания каждой книги считаются для вас обоих вместе.',
  'orders.mail.giftDownloadsPage': 'Ваши электронные и аудиокниги: {url}',
  'orders.giftDownloadsInvalid': 'Эта ссылка на электронные и аудиокниги недействительна.',
  'orders.giftDownloadsExpired': 'Эта ссылка на электронные и аудиокниги действовала до {date}.',
  'orders.giftDownloadsEnded': 'Электронные и аудиокниги по этой ссылке больше нельзя скачать.',
  'orders.mail.lines': 'Заказанные товары:',
  'orders.mail.line': '{title} × {quantity}: {total}',
  'orders.mail.subtotal': 'Товары: {amount}',
  'orders.mail.discount': 'Скидка: −{amount}',
  'orders.mail.delivery': 'Доставка ({method}): {amount}',
  'orders.mail.vatIncluded': 'В т. ч. НДС: {amount}',
  'orders.mail.vatAdded': 'НДС: {amount}',
  'orders.mail.giftCards': 'Подарочные карты: −{amount}',
  'orders.mail.total': 'Итого: {amount}',
  'orders.mail.deliverTo': 'Адрес доставки: {details}',
  'orders.mail.downloads': 'Электронные и аудиокниги можно скачать на странице заказа по ссылке ниже.',
  'orders.mail.downloadsInAccount':
    'Электронные и аудиокниги можно скачать в вашей учётной записи (Загрузки) и на странице заказа по ссылке ниже.',
  'orders.mail.orderPage': 'Ваш заказ и его состояние: {url}',
  'orders.mail.code': 'Код вашего заказа {code}; укажите его, обращаясь к нам.',
  'orders.cancelled.subject': 'Ваш заказ {code} отменён – {store}',
  'orders.cancelled.paid': 'Ваш заказ {code} отменён, и уплаченная за него сумма возвращена.',
  'orders.mail.backToPayment':
    '{amount} возвращается на карту или банковский счёт, с которых вы платили; зачисление может занять несколько рабочих дней.',
  'orders.cancelled.toGiftCards': '{amount} снова на подарочных картах, которыми вы платили.',
  'orders.cancelled.paidOffline': 'Ваш заказ {code} отменён.',
  'orders.cancelled.offlineNotReturned':
    'Сумма {amount} к оплате способом «{method}» при этой отмене не возвращается: если вы её уже оплатили, свяжитесь с нами, чтобы получить её обратно.',
  'orders.cancelled.unpaid':
    'Ваш заказ {code} отменён, так как он не был оплачен вовремя. Деньги не списаны, и товары больше не зарезервированы для вас.',
  'orders.cancelled.heldOnGiftCards': 'Удержанные для него {amount} на ваших подарочных картах снова доступны.',
  'orders.refunded.subject': 'Возврат денег по заказу {code} – {store}',
  'orders.refunded.part': 'Мы вернули часть суммы, уплаченной за ваш заказ {code}.',
  'orders.refunded.whole': 'Мы вернули сумму, уплаченную за ваш заказ {code}.',
  'orders.refunded.inAll': 'Всего возвращено {amount} из уплаченных {paid}.',
  'orders.mail.boughtCardsTakenOff':
    '{amount} из этой суммы — остаток на подарочных картах, купленных в этом заказе: столько с них списано.',
  'orders.mail.boughtCardsSpent': 'Потраченные с подарочных карт, купленных в этом заказе, {amount} не возвращаются.',
  'orders.cancelled.paidBoughtCardsSpent':
    'Ваш заказ {code} отменён, и уплаченная за него сумма возвращена, кроме потраченного с подарочных карт, купленных в этом заказе.',
  'orders.notPickup': 'Заказ {code} доставляется способом «{delivery}»: он не выдаётся в магазине.',
  'orders.pickupNotPaid': 'Заказ {code} в статусе {status}: выдаётся только оплаченный заказ (или оплачиваемый в магазине).',
  'orders.pickupCollected': 'Заказ {code} уже получен.',
  'orders.collectByPast': 'должно быть сегодня или позже (дата по таллинскому времени)',
  'orders.collectByFar': 'может быть не позже чем через {days} дней',
  'orders.pickup.readySubject': 'Ваш заказ {code} готов к выдаче – {store}',
  'orders.pickup.reminderSubject': 'Ваш заказ {code} ждёт вас до {date} – {store}',
  'orders.pickup.ready': 'Ваш заказ {code} готов и ждёт вас: {shop}.',
  'orders.pickup.reminder': 'Ваш заказ {code} всё ещё ждёт вас: {shop}.',
  'orders.pickup.address': 'Адрес: {address}',
  'orders.pickup.hours': 'Часы работы: {hours}',
  'orders.pickup.collectBy': 'Мы храним его для вас до конца дня {date}.',
  'orders.pickup.code': 'Назовите, пожалуйста, код заказа {code}, когда придёте за ним.',
  'orders.feedback.subject': 'Как вам понравилось? Ваш заказ {code} – {store}',
  'orders.feedback.intro': 'Спасибо за заказ {code}! Расскажете другим читателям, что вы думаете о покупке? Достаточно поставить звёзды:',
  'orders.feedback.line': '{title}: {url}',
  'orders.feedback.why':
    'Вы получили это письмо, потому что согласились на рекламные письма {store}; отписаться можно в почтовой программе или в профиле.',
};

export const ordersMessages = { en, et, ru };

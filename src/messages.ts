// Composition root of the messages: each module keeps its messages next to its code
// (`<m>.messages.ts`). This file adds their keys to `MessageKey` (declaration merging on
// i18n's `ModuleMessages`, so i18n imports no module) and, when imported, registers their texts
// with translate(). Every root that translates (app.ts, worker.ts, main.ts) imports it for that
// side effect; registering twice is harmless.
import { registerMessages } from './i18n/index.js';
import { accountsMessages } from './modules/accounts/index.js';
import { adminMessages } from './modules/admin/index.js';
import { backInStockMessages } from './modules/back-in-stock/index.js';
import { basketMessages } from './modules/basket/index.js';
import { blogMessages } from './modules/blog/index.js';
import { catalogueMessages } from './modules/catalogue/index.js';
import { companiesMessages } from './modules/companies/index.js';
import { contentMessages } from './modules/content/index.js';
import { contactMessages } from './modules/contact/index.js';
import { ctrMessages } from './modules/ctr/index.js';
import { dataExportMessages } from './modules/data-export/index.js';
import { newsletterMessages } from './modules/newsletter/index.js';
import { downloadsMessages } from './modules/downloads/index.js';
import { gdprMessages } from './modules/gdpr/index.js';
import { giftCardsMessages } from './modules/gift-cards/index.js';
import { integrationsMessages } from './modules/integrations/index.js';
import { checkoutMessages } from './modules/orders/index.js';
import { ordersMessages } from './modules/orders/index.js';
import { profileMessages } from './modules/profile/index.js';
import { searchMessages } from './modules/search/index.js';
import { siteMessages } from './modules/site/index.js';
import { sitemapMessages } from './modules/sitemap/index.js';
import { socialMessages } from './modules/social/index.js';
import { subscriptionsMessages } from './modules/subscriptions/index.js';
import { trackingMessages } from './modules/tracking/index.js';
import { wishlistMessages } from './modules/wishlist/index.js';

type Keys<Set extends { en: object }> = Set['en'];

declare module './i18n/index.js' {
  interface ModuleMessages
    extends
      Keys<typeof accountsMessages>,
      Keys<typeof adminMessages>,
      Keys<typeof backInStockMessages>,
      Keys<typeof basketMessages>,
      Keys<typeof blogMessages>,
      Keys<typeof catalogueMessages>,
      Keys<typeof companiesMessages>,
      Keys<typeof contentMessages>,
      Keys<typeof contactMessages>,
      Keys<typeof ctrMessages>,
      Keys<typeof dataExportMessages>,
      Keys<typeof newsletterMessages>,
      Keys<typeof downloadsMessages>,
      Keys<typeof gdprMessages>,
      Keys<typeof giftCardsMessages>,
      Keys<typeof integrationsMessages>,
      Keys<typeof checkoutMessages>,
      Keys<typeof ordersMessages>,
      Keys<typeof profileMessages>,
      Keys<typeof searchMessages>,
      Keys<typeof siteMessages>,
      Keys<typeof sitemapMessages>,
      Keys<typeof socialMessages>,
      Keys<typeof subscriptionsMessages>,
      Keys<typeof trackingMessages>,
      Keys<typeof wishlistMessages> {}
}

for (const set of [
  accountsMessages,
  adminMessages,
  backInStockMessages,
  basketMessages,
  blogMessages,
  catalogueMessages,
  companiesMessages,
  contentMessages,
  contactMessages,
  ctrMessages,
  dataExportMessages,
  newsletterMessages,
  downloadsMessages,
  gdprMessages,
  giftCardsMessages,
  integrationsMessages,
  checkoutMessages,
  ordersMessages,
  profileMessages,
  searchMessages,
  siteMessages,
  sitemapMessages,
  socialMessages,
  subscriptionsMessages,
  trackingMessages,
  wishlistMessages,
]) {
  registerMessages(set);
}

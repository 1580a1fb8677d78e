import { jobsPersonalData } from '../../infra/jobs/jobs.personal-data.js';
import { refusedAddressesPersonalData } from '../../infra/mail/refused-addresses.js';
import type { PersonalDataPart } from '../../infra/personal-data.js';
import { accountsPersonalData } from '../accounts/index.js';
import { backInStockPersonalData } from '../back-in-stock/index.js';
import { basketPersonalData, basketReminderPersonalData } from '../basket/index.js';
import { cataloguePersonalData } from '../catalogue/index.js';
import { companiesPersonalData } from '../companies/index.js';
import { dataExportPersonalData } from '../data-export/index.js';
import { downloadsPersonalData } from '../downloads/index.js';
import { eventsPersonalData } from '../events/index.js';
import { giftCardsPersonalData } from '../gift-cards/index.js';
import { integrationsPersonalData } from '../integrations/index.js';
import { marketingPersonalData } from '../marketing/index.js';
import { newsletterPersonalData } from '../newsletter/index.js';
import { feedbackRequestPersonalData, giftsReceivedPersonalData, ordersPersonalData } from '../orders/index.js';
import { profilePersonalData } from '../profile/index.js';
import { socialPersonalData } from '../social/index.js';
import { subscriptionsPersonalData } from '../subscriptions/index.js';
import { trackingPersonalData } from '../tracking/index.js';
import { wishlistOfferMailPersonalData, wishlistPersonalData } from '../wishlist/index.js';

/**
 * Every module's part of "your data", in the order of the export and of the erasure. A module
 * that stores something about a person exports a PersonalDataPart from its index.ts and is added
 * here (one line). Accounts stays last: its erasure replaces the email the others look rows up by.
 * The catalogue's (the ratings' recount takes the rated products' rows) comes after the orders' and the
 * events': the erasure takes orders, then event streams, then product rows, the order a checkout and
 * an order's status change take them in (test/orders/checkout-beside-erasure.test.ts: a deadlock before).
 */
export const personalDataParts: readonly PersonalDataPart[] = [
  profilePersonalData,
  companiesPersonalData,
  ordersPersonalData,
  giftsReceivedPersonalData,
  feedbackRequestPersonalData,
  downloadsPersonalData,
  giftCardsPersonalData,
  subscriptionsPersonalData,
  basketPersonalData,
  basketReminderPersonalData,
  wishlistPersonalData,
  wishlistOfferMailPersonalData,
  backInStockPersonalData,
  newsletterPersonalData,
  socialPersonalData,
  trackingPersonalData,
  dataExportPersonalData,
  eventsPersonalData,
  cataloguePersonalData,
  integrationsPersonalData,
  marketingPersonalData,
  jobsPersonalData,
  refusedAddressesPersonalData,
  accountsPersonalData,
];

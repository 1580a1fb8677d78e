// Composition root of the table types: each module declares its tables next to its code
// (`<m>.tables.ts`), and this file adds them to `Database` (src/db/schema.ts) by declaration
// merging, so the db layer never imports a module. Nothing imports this file; TypeScript sees it
// because it is part of the program (tsconfig includes src/).
import type { AccountsTables } from './modules/accounts/index.js';
import type { AdminTables } from './modules/admin/index.js';
import type { BackInStockTables } from './modules/back-in-stock/index.js';
import type { BasketTables } from './modules/basket/index.js';
import type { BlogTables } from './modules/blog/index.js';
import type { CatalogueTables } from './modules/catalogue/index.js';
import type { ContentTables } from './modules/content/index.js';
import type { CompaniesTables } from './modules/companies/index.js';
import type { ContactTables } from './modules/contact/index.js';
import type { CtrTables } from './modules/ctr/index.js';
import type { CountryTables } from './modules/country/index.js';
import type { DataExportTables } from './modules/data-export/index.js';
import type { NewsletterTables } from './modules/newsletter/index.js';
import type { DownloadsTables } from './modules/downloads/index.js';
import type { EventsTables } from './modules/events/index.js';
import type { IntegrationsTables } from './modules/integrations/index.js';
import type { GiftCardsTables } from './modules/gift-cards/index.js';
import type { OrdersTables } from './modules/orders/index.js';
import type { ProfileTables } from './modules/profile/index.js';
import type { TestGatewayTables } from './modules/payments/index.js';
import type { SearchTables } from './modules/search/index.js';
import type { SitemapTables } from './modules/sitemap/index.js';
import type { SocialTables } from './modules/social/index.js';
import type { StoreTables } from './modules/store/index.js';
import type { SubscriptionsTables } from './modules/subscriptions/index.js';
import type { TrackingTables } from './modules/tracking/index.js';
import type { WishlistTables } from './modules/wishlist/index.js';

declare module './db/schema.js' {
  interface Database
    extends
      AccountsTables,
      AdminTables,
      BackInStockTables,
      BasketTables,
      BlogTables,
      CatalogueTables,
      CompaniesTables,
      ContactTables,
      CtrTables,
      ContentTables,
      CountryTables,
      DataExportTables,
      NewsletterTables,
      DownloadsTables,
      EventsTables,
      IntegrationsTables,
      GiftCardsTables,
      OrdersTables,
      ProfileTables,
      SearchTables,
      SitemapTables,
      SocialTables,
      StoreTables,
      SubscriptionsTables,
      TestGatewayTables,
      TrackingTables,
      WishlistTables {}
}

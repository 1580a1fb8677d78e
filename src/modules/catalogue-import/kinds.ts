import type { ImportKind } from '../../infra/import/index.js';
import { campaignsKind } from './campaigns.js';
import { categoriesKind } from './categories.js';
import { pricesKind } from './prices.js';
import { productListsKind } from './product-lists.js';
import { productsKind } from './products.import.js';
import { personsKind, publishersKind, seriesKind } from './publishers.js';
import { quotesKind } from './quotes.js';
import { shopsKind } from './shops.js';
import { stockKind } from './stock.js';

/** The catalogue's import kinds, in the order a first load runs them (references before users). */
export const catalogueImportKinds: Record<string, ImportKind> = {
  publishers: publishersKind,
  persons: personsKind,
  series: seriesKind,
  categories: categoriesKind,
  shops: shopsKind,
  products: productsKind,
  stock: stockKind,
  prices: pricesKind,
  campaigns: campaignsKind,
  'product-lists': productListsKind,
  quotes: quotesKind,
};

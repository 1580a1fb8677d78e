import type { Language } from '../../i18n/index.js';
import type { Catalogue, CatalogueContext } from '../catalogue/index.js';
import type { DatabaseHandle } from '../../db/database.js';
import type { Audience } from './published.js';

/** Who reads content, where and when: the catalogue's context (caller, store, language, now) and more. */
export interface ContentContext {
  catalogue: CatalogueContext;
  /** The store's default language: the fallback of a missing translation. */
  defaultLanguage: Language;
  audience: Audience;
}

/** What the content reads need from the application. */
export interface ContentReadDeps {
  database: DatabaseHandle;
  /** The catalogue's shared reading side: product cards, lists and the category tree, priced for the caller. */
  catalogue: Catalogue;
}

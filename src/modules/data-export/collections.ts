import { toRfc3339 } from '../../db/time.js';
import { groupBy, lastBoundary, pickName, type ExportCollection } from './collection.js';
import {
  readCategoryPreferences,
  readClientAccounts,
  readSalesHistory,
  readSalesHistoryLines,
  readSessionActions,
  readShopNames,
  readShops,
} from './collections.repository.js';
import type { ClientAccountItem, SalesHistoryItem, SessionActionItem, ShopItem } from './data-export.schemas.js';

// Four of the five collections, from rows to items; products, which need the most joins, are in
// products.export.ts. The reads are in collections.repository.ts.

const BIRTHDAY = /^\d{4}-\d{2}-\d{2}$/;

export const clientAccountsCollection: ExportCollection<ClientAccountItem> = {
  path: '/client-account',
  table: 'client_account',
  settles: true,
  // updatedFrom/updatedTo: the person's later edits (gender, birthday), an erasure's blanking and
  // the categories followed reach an analyst who read the account when it was created.
  filters: { created: true, updated: true },
  async load({ db }, slice) {
    const rows = await readClientAccounts(db, slice);
    if (rows.length === 0) return { items: [], last: undefined };
    const preferences = await readCategoryPreferences(
      db,
      rows.map((row) => row.id),
    );
    const preferencesOf = groupBy(preferences, (row) => Number(row.client_account_id));
    const items = rows.map((row): ClientAccountItem => {
      return {
        client: row.code,
        gender: row.gender ?? '',
        // The spec lists birthday on every row: null while the client has not given it.
        birthday: row.birthday !== null && BIRTHDAY.test(row.birthday) ? `${row.birthday}T00:00:00Z` : null,
        created: toRfc3339(Number(row.created_at)),
        preferences: (preferencesOf.get(Number(row.id)) ?? []).map((preference) => preference.code),
      };
    });
    return { items, last: lastBoundary(rows, slice) };
  },
};

export const salesHistoryCollection: ExportCollection<SalesHistoryItem> = {
  path: '/sales-history',
  table: 'sales_history',
  // Stamped before commit like the others: an order job that started first may commit after an import line.
  settles: true,
  // updatedFrom/updatedTo: a createdNav the back office reports later, or an erasure's blanking,
  // reach an analyst who read the row when it arrived.
  filters: { created: true, updated: true },
  async load({ db }, slice) {
    const rows = await readSalesHistory(db, slice);
    if (rows.length === 0) return { items: [], last: undefined };
    const lines = await readSalesHistoryLines(
      db,
      rows.map((row) => Number(row.id)),
    );
    const linesOf = groupBy(lines, (line) => Number(line.sales_history_id));
    const items = rows.map((row): SalesHistoryItem => {
      const item: SalesHistoryItem = {
        order: row.order_code,
        client: row.client_code,
        clientType: row.client_type,
        createdAt: toRfc3339(Number(row.created_at)),
        sourceType: row.source_type,
        products: (linesOf.get(Number(row.id)) ?? []).map((line) => line.product_code),
        city: row.city,
        session: row.session_id,
        deliveryMethod: row.delivery_method,
        shop: row.shop_code,
      };
      // Filled by a later import once the back office has created the order; absent until then.
      if (row.created_nav !== null) item.createdNav = toRfc3339(Number(row.created_nav));
      return item;
    });
    return { items, last: lastBoundary(rows, slice) };
  },
};

export const sessionActionsCollection: ExportCollection<SessionActionItem> = {
  path: '/session',
  table: 'session_action',
  settles: true,
  // A window, so a partner resumes after the hourly clean-up by time: a `page` counted from the
  // oldest row shifts as the oldest rows are deleted (SESSION_ACTION_RETENTION_DAYS).
  filters: { created: true, updated: false },
  async load({ db }, slice) {
    const rows = await readSessionActions(db, slice);
    const items = rows.map((row): SessionActionItem => ({
      session: row.session_id,
      webStore: row.store_code,
      product: row.product_code,
      // The spec's client is a non-null string: a guest's action has an empty one.
      client: row.client_code ?? '',
      actionType: row.action_type,
      createdAt: toRfc3339(Number(row.created_at)),
    }));
    return { items, last: lastBoundary(rows, slice) };
  },
};

export const shopsCollection: ExportCollection<ShopItem> = {
  path: '/shop',
  table: 'shop',
  settles: true,
  filters: { created: false, updated: false },
  async load({ db }, slice) {
    const rows = await readShops(db, slice);
    if (rows.length === 0) return { items: [], last: undefined };
    const names = await readShopNames(
      db,
      rows.map((row) => row.id),
    );
    const namesOf = groupBy(names, (name) => Number(name.shop_id));
    const items = rows.map((row): ShopItem => ({
      code: row.code,
      name: pickName(namesOf.get(Number(row.id))) ?? row.code,
      city: row.city,
    }));
    return { items, last: lastBoundary(rows, slice) };
  },
};

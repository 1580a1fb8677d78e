import { rfc3339 } from './rfc3339.js';
import { applySlice, groupBy, lastBoundary, pickName, type ExportCollection } from './collection.js';
import type { ClientAccountItem, SalesHistoryItem, SessionActionItem, ShopItem } from './data-export.schemas.js';

// Four of the five collections; products, which need the most joins, are in products.export.ts.
// Children (order lines, preferences, names) are read in one query per page, never per row.

const BIRTHDAY = /^\d{4}-\d{2}-\d{2}$/;

export const clientAccountsCollection: ExportCollection<ClientAccountItem> = {
  path: '/client-account',
  table: 'client_account',
  filterable: true,
  async load({ db }, slice) {
    const rows = await applySlice(
      db
        .selectFrom('client_account')
        .innerJoin('app_user', 'app_user.id', 'client_account.user_id')
        .select(['client_account.id', 'client_account.code', 'client_account.created_at', 'app_user.gender', 'app_user.birthday']),
      'client_account',
      slice,
    ).execute();
    if (rows.length === 0) return { items: [], last: undefined };
    const preferences = await db
      .selectFrom('client_category_preference')
      .innerJoin('category', 'category.id', 'client_category_preference.category_id')
      .select(['client_category_preference.client_account_id', 'category.code'])
      .where('client_category_preference.client_account_id', 'in', rows.map((row) => row.id))
      .orderBy('client_category_preference.client_account_id')
      .orderBy('client_category_preference.created_at')
      .orderBy('category.code')
      .execute();
    const preferencesOf = groupBy(preferences, (row) => Number(row.client_account_id));
    const items = rows.map((row): ClientAccountItem => {
      const item: ClientAccountItem = {
        client: row.code,
        gender: row.gender ?? '',
        created: rfc3339(Number(row.created_at)),
        preferences: (preferencesOf.get(Number(row.id)) ?? []).map((preference) => preference.code),
      };
      // A date-time that is not known is left out rather than made up (the spec has no null here).
      if (row.birthday !== null && BIRTHDAY.test(row.birthday)) item.birthday = `${row.birthday}T00:00:00Z`;
      return item;
    });
    return { items, last: lastBoundary(rows) };
  },
};

export const salesHistoryCollection: ExportCollection<SalesHistoryItem> = {
  path: '/sales-history',
  table: 'sales_history',
  filterable: true,
  async load({ db }, slice) {
    const rows = await applySlice(db.selectFrom('sales_history').selectAll(), 'sales_history', slice).execute();
    if (rows.length === 0) return { items: [], last: undefined };
    const ids = rows.map((row) => Number(row.id));
    let low = Infinity;
    let high = -Infinity;
    for (const id of ids) {
      if (id < low) low = id;
      if (id > high) high = id;
    }
    // Orders reach us in time order, so a batch's ids are nearly consecutive: one range scan of the
    // lines' primary key is cheaper than a thousand look-ups. Lines of orders outside the batch
    // (at most as many again) are read and ignored; sparse ids take the look-ups.
    const dense = high - low < 2 * ids.length;
    const lines = await db
      .selectFrom('sales_history_item')
      .select(['sales_history_id', 'product_code'])
      .$call((query) => (dense ? query.where('sales_history_id', '>=', low).where('sales_history_id', '<=', high) : query.where('sales_history_id', 'in', ids)))
      .orderBy('sales_history_id')
      .orderBy('position')
      .execute();
    const linesOf = groupBy(lines, (line) => Number(line.sales_history_id));
    const items = rows.map((row): SalesHistoryItem => {
      const item: SalesHistoryItem = {
        order: row.order_code,
        client: row.client_code,
        clientType: row.client_type,
        createdAt: rfc3339(Number(row.created_at)),
        sourceType: row.source_type,
        products: (linesOf.get(Number(row.id)) ?? []).map((line) => line.product_code),
        city: row.city,
        session: row.session_id,
        deliveryMethod: row.delivery_method,
        shop: row.shop_code,
      };
      // Filled by a later import once the back office has created the order; absent until then.
      if (row.created_nav !== null) item.createdNav = rfc3339(Number(row.created_nav));
      return item;
    });
    return { items, last: lastBoundary(rows) };
  },
};

export const sessionActionsCollection: ExportCollection<SessionActionItem> = {
  path: '/session',
  table: 'session_action',
  filterable: false,
  async load({ db }, slice) {
    const rows = await applySlice(db.selectFrom('session_action').selectAll(), 'session_action', slice).execute();
    const items = rows.map(
      (row): SessionActionItem => ({
        session: row.session_id,
        webStore: row.store_code,
        product: row.product_code,
        // The spec's client is a non-null string: a guest's action has an empty one.
        client: row.client_code ?? '',
        actionType: row.action_type,
        createdAt: rfc3339(Number(row.created_at)),
      }),
    );
    return { items, last: lastBoundary(rows) };
  },
};

export const shopsCollection: ExportCollection<ShopItem> = {
  path: '/shop',
  table: 'shop',
  filterable: false,
  async load({ db }, slice) {
    const rows = await applySlice(db.selectFrom('shop').select(['shop.id', 'shop.code', 'shop.city', 'shop.created_at']), 'shop', slice).execute();
    if (rows.length === 0) return { items: [], last: undefined };
    const names = await db
      .selectFrom('shop_name')
      .select(['shop_id', 'language', 'name'])
      .where('shop_id', 'in', rows.map((row) => row.id))
      .execute();
    const namesOf = groupBy(names, (name) => Number(name.shop_id));
    const items = rows.map((row): ShopItem => ({ code: row.code, name: pickName(namesOf.get(Number(row.id))) ?? row.code, city: row.city }));
    return { items, last: lastBoundary(rows) };
  },
};

import type { Db } from '../../db/database.js';
import { toRfc3339 } from '../../db/time.js';
import { accountIdsOf, type PersonalDataPart, type PersonalDataSubject } from '../../infra/personal-data.js';
import { refreshRating } from './denormalised.repository.js';
import { lockProduct } from './reviews/comment.repository.js';

// What the catalogue keeps of a client: followed categories, comments (with the author name they
// gave) and ratings. The erasure deletes them and recounts the ratings of the products concerned.

const time = (ms: number) => toRfc3339(Number(ms));

async function exportCatalogue(db: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return { categoryPreferences: [], comments: [], ratings: [] };
  const categories = await db
    .selectFrom('client_category_preference')
    .innerJoin('category', 'category.id', 'client_category_preference.category_id')
    .innerJoin('client_account', 'client_account.id', 'client_category_preference.client_account_id')
    .select(['client_account.code as clientCode', 'category.code as category', 'client_category_preference.created_at'])
    .where('client_category_preference.client_account_id', 'in', ids)
    .orderBy('client_category_preference.created_at')
    .execute();
  const comments = await db
    .selectFrom('product_comment')
    .select(['product_id', 'author_name', 'body', 'language', 'created_at'])
    .where('client_account_id', 'in', ids)
    .orderBy('id')
    .limit(10_000)
    .execute();
  const ratings = await db
    .selectFrom('product_rating')
    .select(['product_id', 'rating', 'created_at', 'updated_at'])
    .where('client_account_id', 'in', ids)
    .limit(10_000)
    .execute();
  return {
    categoryPreferences: categories.map((row) => ({ clientCode: row.clientCode, category: row.category, since: time(row.created_at) })),
    comments: comments.map((row) => ({
      productId: Number(row.product_id),
      authorName: row.author_name,
      body: row.body,
      language: row.language,
      createdAt: time(row.created_at),
    })),
    ratings: ratings.map((row) => ({
      productId: Number(row.product_id),
      rating: row.rating,
      createdAt: time(row.created_at),
      updatedAt: time(row.updated_at),
    })),
  };
}

async function eraseCatalogue(trx: Db, subject: PersonalDataSubject) {
  const ids = accountIdsOf(subject);
  if (ids.length === 0) return;
  await trx.deleteFrom('client_category_preference').where('client_account_id', 'in', ids).execute();
  await trx.deleteFrom('product_comment').where('client_account_id', 'in', ids).execute();
  const rated = await trx.selectFrom('product_rating').select('product_id').where('client_account_id', 'in', ids).execute();
  // The products' rating locks first (in id order), as a rating change takes it: a rating given
  // meanwhile is then in the recount, which otherwise read the totals from before it.
  const products = [...new Set(rated.map((row) => Number(row.product_id)))].sort((a, b) => a - b);
  for (const productId of products) await lockProduct(trx, productId);
  await trx.deleteFrom('product_rating').where('client_account_id', 'in', ids).execute();
  for (const productId of products) await refreshRating(trx, productId);
}

/** The catalogue's part of "your data": followed categories, comments and ratings. */
export const cataloguePersonalData: PersonalDataPart = { name: 'catalogue', export: exportCatalogue, erase: eraseCatalogue };

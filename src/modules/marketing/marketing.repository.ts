import type { Db } from '../../db/database.js';
import { isErasedEmail } from '../../infra/personal-data.js';

/** Whether the user is gone: erased (their email the placeholder) or no longer there. */
export async function isUserErased(db: Db, userId: number): Promise<boolean> {
  const user = await db.selectFrom('app_user').select('email').where('id', '=', userId).executeTakeFirst();
  return user === undefined || isErasedEmail(user.email);
}

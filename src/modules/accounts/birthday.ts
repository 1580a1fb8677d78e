import { invalidField } from '../../infra/domain-error.js';
import { localTime } from '../../infra/shop-time.js';

/**
 * A birthday from 1900-01-01 up to yesterday, a day in Tallinn at the action time, where the shop and
 * its customers are: read in UTC, for two or three hours after midnight there yesterday was still
 * "today" and refused. Registration and the profile share it.
 */
export function checkBirthday(birthday: string | null | undefined, now: number): void {
  if (birthday === undefined || birthday === null) return;
  if (birthday < '1900-01-01' || birthday >= localTime(now).date) throw invalidField('birthday', 'birthday.range');
}

import { InvalidInputError, type InvalidField } from '../../infra/domain-error.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem } from '../../infra/passwords.js';

/** What is wrong with a password form (password, its repeat), field by field. */
export function passwordFieldErrors(form: { password: string; passwordRepeat: string }, email: string): InvalidField[] {
  const errors: InvalidField[] = [];
  const problem = passwordProblem(form.password, email);
  if (problem === 'tooShort') errors.push({ field: 'password', messageKey: 'password.tooShort', params: { limit: PASSWORD_MIN_LENGTH } });
  if (problem === 'tooLong') errors.push({ field: 'password', messageKey: 'password.tooLong', params: { limit: PASSWORD_MAX_LENGTH } });
  if (problem === 'common') errors.push({ field: 'password', messageKey: 'password.common' });
  if (problem === 'sameAsEmail') errors.push({ field: 'password', messageKey: 'password.sameAsEmail' });
  if (form.passwordRepeat !== form.password) errors.push({ field: 'passwordRepeat', messageKey: 'password.mismatch' });
  return errors;
}

/** Throws the 422 for a form with any field errors. */
export function refuseFieldErrors(errors: InvalidField[]): void {
  if (errors.length > 0) throw new InvalidInputError(errors);
}

import type { FieldError } from '../../http/errors.js';
import { translate, type Language } from '../../i18n/index.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, passwordProblem } from '../../infra/passwords.js';

/** Field errors of a password form (password, its repeat), in the caller's language. */
export function passwordFieldErrors(
  form: { password: string; passwordRepeat: string },
  email: string,
  language: Language,
): FieldError[] {
  const errors: FieldError[] = [];
  const problem = passwordProblem(form.password, email);
  if (problem === 'tooShort') errors.push({ field: 'password', message: translate(language, 'password.tooShort', { limit: PASSWORD_MIN_LENGTH }) });
  if (problem === 'tooLong') errors.push({ field: 'password', message: translate(language, 'password.tooLong', { limit: PASSWORD_MAX_LENGTH }) });
  if (problem === 'common') errors.push({ field: 'password', message: translate(language, 'password.common') });
  if (problem === 'sameAsEmail') errors.push({ field: 'password', message: translate(language, 'password.sameAsEmail') });
  if (form.passwordRepeat !== form.password) {
    errors.push({ field: 'passwordRepeat', message: translate(language, 'password.mismatch') });
  }
  return errors;
}

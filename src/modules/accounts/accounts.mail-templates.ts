import type { Language } from '../../i18n/index.js';
import { escapeHtml } from '../../infra/html.js';
import type { PasswordChangedVia } from './accounts.jobs.js';

/** A mail as data: rendered to both HTML and text so the two never disagree. */
export interface MailContent {
  subject: string;
  paragraphs: string[];
  action?: { label: string; url: string };
}

type Templates<P> = Record<Language, (params: P) => MailContent>;

export const verificationMail: Templates<{ name: string; storeName: string; url: string; days: number }> = {
  et: (p) => ({
    subject: `Kinnitage oma e-posti aadress – ${p.storeName}`,
    paragraphs: [
      `Tere, ${p.name}!`,
      `Aitäh registreerumast. Kinnitage oma e-posti aadress ja määrake parool. Link kehtib ${p.days} päeva.`,
    ],
    action: { label: 'Kinnita e-post', url: p.url },
  }),
  en: (p) => ({
    subject: `Confirm your email address – ${p.storeName}`,
    paragraphs: [
      `Hello ${p.name},`,
      `Thank you for registering. Please confirm your email address and set your password. The link is valid for ${p.days} days.`,
    ],
    action: { label: 'Confirm email', url: p.url },
  }),
  ru: (p) => ({
    subject: `Подтвердите адрес электронной почты – ${p.storeName}`,
    paragraphs: [
      `Здравствуйте, ${p.name}!`,
      `Спасибо за регистрацию. Подтвердите адрес электронной почты и задайте пароль. Ссылка действительна ${p.days} дн.`,
    ],
    action: { label: 'Подтвердить', url: p.url },
  }),
};

type CompanyAccountType = 'BUSINESS' | 'WHOLESALE';
const ACCOUNT_NAMES: Record<Language, Record<CompanyAccountType, string>> = {
  et: { BUSINESS: 'ärikliendi konto', WHOLESALE: 'hulgikliendi konto' },
  en: { BUSINESS: 'business account', WHOLESALE: 'wholesale account' },
  ru: { BUSINESS: 'бизнес-аккаунт', WHOLESALE: 'оптовый аккаунт' },
};

/** A link to confirm an account of a company, and whose it is. */
type CompanyAccountMail = { name: string; storeName: string; url: string; days: number; companyName: string; type: CompanyAccountType };

/** To a verified user whom a registration form named as a company's contact: nothing is usable until they confirm. */
export const accountConfirmationMail: Templates<CompanyAccountMail> = {
  et: (p) => ({
    subject: `Kinnitage ${ACCOUNT_NAMES.et[p.type]}: ${p.companyName} – ${p.storeName}`,
    paragraphs: [
      `Tere, ${p.name}!`,
      `Teid märgiti ettevõtte ${p.companyName} kontaktisikuks (${ACCOUNT_NAMES.et[p.type]} poes ${p.storeName}). Kontot saab kasutada alles pärast seda, kui olete selle kinnitanud ja parooli määranud. Link kehtib ${p.days} päeva.`,
      'Kui see ei olnud teie, jätke kiri tähelepanuta: teie kontos ei muutu midagi.',
    ],
    action: { label: 'Kinnita konto', url: p.url },
  }),
  en: (p) => ({
    subject: `Confirm the ${ACCOUNT_NAMES.en[p.type]} of ${p.companyName} – ${p.storeName}`,
    paragraphs: [
      `Hello ${p.name},`,
      `You were named as the contact person of ${p.companyName} for a ${ACCOUNT_NAMES.en[p.type]} in ${p.storeName}. The account can be used only after you confirm it and set your password. The link is valid for ${p.days} days.`,
      'If this was not you, ignore this mail: nothing changes for your account.',
    ],
    action: { label: 'Confirm the account', url: p.url },
  }),
  ru: (p) => ({
    subject: `Подтвердите ${ACCOUNT_NAMES.ru[p.type]}: ${p.companyName} – ${p.storeName}`,
    paragraphs: [
      `Здравствуйте, ${p.name}!`,
      `Вас указали контактным лицом компании ${p.companyName} (${ACCOUNT_NAMES.ru[p.type]} в ${p.storeName}). Аккаунтом можно пользоваться только после того, как вы подтвердите его и зададите пароль. Ссылка действительна ${p.days} дн.`,
      'Если это были не вы, просто проигнорируйте письмо: в вашей учётной записи ничего не изменится.',
    ],
    action: { label: 'Подтвердить', url: p.url },
  }),
};

/** To a person a company's master invited in: whose account it is, and that it waits for them. */
export const companyInvitationMail: Templates<CompanyAccountMail> = {
  et: (p) => ({
    subject: `Teid kutsuti ettevõtte ${p.companyName} kontole – ${p.storeName}`,
    paragraphs: [
      `Tere, ${p.name}!`,
      `Ettevõte ${p.companyName} lisas teid oma kasutajaks (${ACCOUNT_NAMES.et[p.type]} poes ${p.storeName}). Kinnitage kutse ja määrake parool; link kehtib ${p.days} päeva.`,
      'Kui te kutset ei oodanud, jätke kiri tähelepanuta: ilma kinnituseta kontot kasutada ei saa.',
    ],
    action: { label: 'Võta kutse vastu', url: p.url },
  }),
  en: (p) => ({
    subject: `You are invited to the account of ${p.companyName} – ${p.storeName}`,
    paragraphs: [
      `Hello ${p.name},`,
      `${p.companyName} added you as a user of its ${ACCOUNT_NAMES.en[p.type]} in ${p.storeName}. Accept the invitation and set your password; the link is valid for ${p.days} days.`,
      'If you did not expect this, ignore this mail: the account cannot be used without your confirmation.',
    ],
    action: { label: 'Accept the invitation', url: p.url },
  }),
  ru: (p) => ({
    subject: `Вас пригласили в аккаунт компании ${p.companyName} – ${p.storeName}`,
    paragraphs: [
      `Здравствуйте, ${p.name}!`,
      `Компания ${p.companyName} добавила вас пользователем (${ACCOUNT_NAMES.ru[p.type]} в ${p.storeName}). Примите приглашение и задайте пароль; ссылка действительна ${p.days} дн.`,
      'Если вы не ждали приглашения, проигнорируйте письмо: без вашего подтверждения аккаунтом пользоваться нельзя.',
    ],
    action: { label: 'Принять приглашение', url: p.url },
  }),
};

export const resetMail: Templates<{ name: string; storeName: string; url: string; minutes: number }> = {
  et: (p) => ({
    subject: `Parooli taastamine – ${p.storeName}`,
    paragraphs: [
      `Tere, ${p.name}!`,
      `Saime taotluse teie parooli taastamiseks. Uue parooli saate määrata ${p.minutes} minuti jooksul.`,
      'Kui te taotlust ei esitanud, võite selle kirja tähelepanuta jätta.',
    ],
    action: { label: 'Määra uus parool', url: p.url },
  }),
  en: (p) => ({
    subject: `Reset your password – ${p.storeName}`,
    paragraphs: [
      `Hello ${p.name},`,
      `We received a request to reset your password. You can set a new one within ${p.minutes} minutes.`,
      'If you did not ask for this, you can ignore this mail.',
    ],
    action: { label: 'Set a new password', url: p.url },
  }),
  ru: (p) => ({
    subject: `Восстановление пароля – ${p.storeName}`,
    paragraphs: [
      `Здравствуйте, ${p.name}!`,
      `Мы получили запрос на восстановление пароля. Задать новый пароль можно в течение ${p.minutes} минут.`,
      'Если вы не отправляли запрос, просто проигнорируйте это письмо.',
    ],
    action: { label: 'Задать новый пароль', url: p.url },
  }),
};

const passwordChangedLink: Record<Language, Record<PasswordChangedVia, string>> = {
  et: {
    reset: 'sellele aadressile saadetud parooli taastamise lingiga',
    verification: 'sellele aadressile saadetud e-posti kinnitamise lingiga',
    invitation: 'sellele aadressile saadetud ettevõtte kutse lingiga',
  },
  en: {
    reset: 'with the password reset link mailed to this address',
    verification: 'with the email verification link mailed to this address',
    invitation: "with a company's invitation link mailed to this address",
  },
  ru: {
    reset: 'по ссылке для восстановления пароля, отправленной на этот адрес',
    verification: 'по ссылке для подтверждения адреса, отправленной на этот адрес',
    invitation: 'по ссылке приглашения компании, отправленной на этот адрес',
  },
};

export const passwordChangedMail: Templates<{ name: string; storeName: string; via: PasswordChangedVia }> = {
  et: (p) => ({
    subject: `Teie parool muudeti – ${p.storeName}`,
    paragraphs: [
      `Tere, ${p.name}!`,
      `Teie kontole poes ${p.storeName} määrati uus parool ${passwordChangedLink.et[p.via]} ja kõik konto seansid lõpetati: logige uue parooliga uuesti sisse.`,
      'Kui see ei olnud teie, taastage parool kohe ja võtke meiega ühendust.',
    ],
  }),
  en: (p) => ({
    subject: `Your password was changed – ${p.storeName}`,
    paragraphs: [
      `Hello ${p.name},`,
      `A new password was set for your account in ${p.storeName} ${passwordChangedLink.en[p.via]}, and every session of the account was ended: log in again with the new password.`,
      'If this was not you, reset your password at once and contact us.',
    ],
  }),
  ru: (p) => ({
    subject: `Ваш пароль изменён – ${p.storeName}`,
    paragraphs: [
      `Здравствуйте, ${p.name}!`,
      `Для вашей учётной записи в ${p.storeName} задан новый пароль ${passwordChangedLink.ru[p.via]}, и все сеансы учётной записи завершены: войдите снова с новым паролем.`,
      'Если это были не вы, немедленно восстановите пароль и свяжитесь с нами.',
    ],
  }),
};

export const otherStoreMail: Templates<{ name: string; storeName: string; otherStoreName: string; url: string }> = {
  et: (p) => ({
    subject: `Teil on juba konto – ${p.storeName}`,
    paragraphs: [
      `Tere, ${p.name}!`,
      `Teie e-posti aadressiga on juba konto poes ${p.otherStoreName}. Logige poodi ${p.storeName} sisse sama e-posti aadressi ja parooliga.`,
    ],
    action: { label: 'Logi sisse', url: p.url },
  }),
  en: (p) => ({
    subject: `You already have an account – ${p.storeName}`,
    paragraphs: [
      `Hello ${p.name},`,
      `Your email address already has an account in ${p.otherStoreName}. Log in to ${p.storeName} with the same email address and password.`,
    ],
    action: { label: 'Log in', url: p.url },
  }),
  ru: (p) => ({
    subject: `У вас уже есть учётная запись – ${p.storeName}`,
    paragraphs: [
      `Здравствуйте, ${p.name}!`,
      `С вашим адресом уже есть учётная запись в ${p.otherStoreName}. Войдите в ${p.storeName} с тем же адресом и паролем.`,
    ],
    action: { label: 'Войти', url: p.url },
  }),
};

export const wholesaleApprovedMail: Templates<{ name: string; storeName: string; url: string }> = {
  et: (p) => ({
    subject: `Hulgikliendi taotlus on kinnitatud – ${p.storeName}`,
    paragraphs: [`Tere, ${p.name}!`, 'Teie hulgikliendi taotlus on kinnitatud. Sisselogimisel valige roll WHOLESALE.'],
    action: { label: 'Logi sisse', url: p.url },
  }),
  en: (p) => ({
    subject: `Your wholesale application is approved – ${p.storeName}`,
    paragraphs: [`Hello ${p.name},`, 'Your wholesale application has been approved. Choose the WHOLESALE role when you log in.'],
    action: { label: 'Log in', url: p.url },
  }),
  ru: (p) => ({
    subject: `Оптовая заявка одобрена – ${p.storeName}`,
    paragraphs: [`Здравствуйте, ${p.name}!`, 'Ваша заявка оптового клиента одобрена. При входе выберите роль WHOLESALE.'],
    action: { label: 'Войти', url: p.url },
  }),
};

export const wholesaleRejectedMail: Templates<{ companyName: string; storeName: string }> = {
  et: (p) => ({
    subject: `Hulgikliendi taotlus – ${p.storeName}`,
    paragraphs: [
      'Tere!',
      `Täname huvi eest. Kahjuks ei saa me ettevõtte ${p.companyName} hulgikliendi taotlust praegu rahuldada. Vastame hea meelega teie küsimustele.`,
    ],
  }),
  en: (p) => ({
    subject: `Your wholesale application – ${p.storeName}`,
    paragraphs: [
      'Hello,',
      `Thank you for your interest. Unfortunately we cannot accept the wholesale application of ${p.companyName} at this time. We are happy to answer any questions.`,
    ],
  }),
  ru: (p) => ({
    subject: `Заявка оптового клиента – ${p.storeName}`,
    paragraphs: [
      'Здравствуйте!',
      `Благодарим за интерес. К сожалению, сейчас мы не можем принять оптовую заявку компании ${p.companyName}. Будем рады ответить на ваши вопросы.`,
    ],
  }),
};

const PROVIDER_NAMES: Record<string, string> = { google: 'Google', facebook: 'Facebook', apple: 'Apple' };
export const providerName = (provider: string) => PROVIDER_NAMES[provider] ?? provider;

export const identityLinkedMail: Templates<{ name: string; provider: string; storeName: string }> = {
  et: (p) => ({
    subject: `Uus sisselogimisviis: ${p.provider} – ${p.storeName}`,
    paragraphs: [
      `Tere, ${p.name}!`,
      `Teie kontoga seoti sisselogimine teenusega ${p.provider}.`,
      'Kui see ei olnud teie, muutke kohe oma parool ja võtke meiega ühendust.',
    ],
  }),
  en: (p) => ({
    subject: `New sign-in method: ${p.provider} – ${p.storeName}`,
    paragraphs: [
      `Hello ${p.name},`,
      `Sign-in with ${p.provider} was linked to your account.`,
      'If this was not you, change your password at once and contact us.',
    ],
  }),
  ru: (p) => ({
    subject: `Новый способ входа: ${p.provider} – ${p.storeName}`,
    paragraphs: [
      `Здравствуйте, ${p.name}!`,
      `К вашей учётной записи привязан вход через ${p.provider}.`,
      'Если это были не вы, немедленно смените пароль и свяжитесь с нами.',
    ],
  }),
};

export function backofficeMail(p: {
  registration: string;
  storeCode: string;
  companyName: string;
  registryCode: string;
  contactEmail: string;
  requestId?: number;
  pendingAccountId?: number;
}): MailContent {
  const decide = (command: string, id: number) => [
    `Approve: npm run cli -- ${command} approve ${id}`,
    `Reject: npm run cli -- ${command} reject ${id}`,
  ];
  const approve = [
    ...(p.requestId === undefined ? [] : decide('wholesale', p.requestId)),
    ...(p.pendingAccountId === undefined ? [] : decide('business', p.pendingAccountId)),
  ];
  return {
    subject: `New ${p.registration.toLowerCase()} registration: ${p.companyName} (${p.storeCode})`,
    paragraphs: [
      `Company: ${p.companyName}, registry code ${p.registryCode}`,
      `Contact: ${p.contactEmail}`,
      `Store: ${p.storeCode}`,
      ...approve,
    ],
  };
}

export function renderMail(content: MailContent): { subject: string; text: string; html: string } {
  const text = [...content.paragraphs, ...(content.action ? [`${content.action.label}: ${content.action.url}`] : [])].join('\n\n');
  const action = content.action
    ? `<p><a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:10px 18px;background:#1a5c3a;color:#fff;text-decoration:none;border-radius:4px">${escapeHtml(content.action.label)}</a></p><p style="font-size:12px;color:#666">${escapeHtml(content.action.url)}</p>`
    : '';
  const html = `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${content.paragraphs
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('')}${action}</body></html>`;
  return { subject: content.subject, text, html };
}

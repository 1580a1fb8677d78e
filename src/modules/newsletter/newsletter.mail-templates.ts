import type { Language } from '../../i18n/index.js';
import { escapeHtml } from '../../infra/html.js';

/** A newsletter mail as data: rendered to both HTML and text so the two never disagree. */
export interface NewsletterMailContent {
  subject: string;
  paragraphs: string[];
  action: { label: string; url: string };
  /** The footer's way out, a front-end page that posts the signed link. */
  unsubscribe: { label: string; url: string };
}

type Templates<P> = Record<Language, (params: P) => NewsletterMailContent>;

export const confirmationMail: Templates<{ storeName: string; url: string; unsubscribeUrl: string; hours: number }> = {
  et: (p) => ({
    subject: `Kinnitage uudiskirja tellimus – ${p.storeName}`,
    paragraphs: [
      'Tere!',
      `Keegi (loodetavasti teie) soovis selle aadressiga tellida poe ${p.storeName} uudiskirja. Tellimus jõustub alles siis, kui kinnitate selle. Link kehtib ${p.hours} tundi.`,
      'Kui see ei olnud teie, jätke kiri tähelepanuta: ilma kinnituseta me teile uudiskirja ei saada.',
    ],
    action: { label: 'Kinnita tellimus', url: p.url },
    unsubscribe: { label: 'Loobu kirjadest', url: p.unsubscribeUrl },
  }),
  en: (p) => ({
    subject: `Confirm your newsletter subscription – ${p.storeName}`,
    paragraphs: [
      'Hello,',
      `Someone (hopefully you) asked to subscribe this address to the ${p.storeName} newsletter. The subscription starts only when you confirm it. The link is valid for ${p.hours} hours.`,
      'If this was not you, ignore this mail: without your confirmation we send you no newsletter.',
    ],
    action: { label: 'Confirm subscription', url: p.url },
    unsubscribe: { label: 'Unsubscribe', url: p.unsubscribeUrl },
  }),
  ru: (p) => ({
    subject: `Подтвердите подписку на рассылку – ${p.storeName}`,
    paragraphs: [
      'Здравствуйте!',
      `Кто-то (надеемся, вы) хочет подписать этот адрес на рассылку магазина ${p.storeName}. Подписка начнётся только после подтверждения. Ссылка действительна ${p.hours} ч.`,
      'Если это были не вы, просто не обращайте внимания на письмо: без подтверждения мы не будем присылать вам рассылку.',
    ],
    action: { label: 'Подтвердить подписку', url: p.url },
    unsubscribe: { label: 'Отписаться', url: p.unsubscribeUrl },
  }),
};

export function renderNewsletterMail(content: NewsletterMailContent): { subject: string; text: string; html: string } {
  const { action, unsubscribe } = content;
  const text = [...content.paragraphs, `${action.label}: ${action.url}`, `${unsubscribe.label}: ${unsubscribe.url}`].join('\n\n');
  const link = (l: { label: string; url: string }, style: string) =>
    `<a href="${escapeHtml(l.url)}" style="${style}">${escapeHtml(l.label)}</a>`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${content.paragraphs
      .map((p) => `<p>${escapeHtml(p)}</p>`)
      .join(
        '',
      )}<p>${link(action, 'display:inline-block;padding:10px 18px;background:#1a5c3a;color:#fff;text-decoration:none;border-radius:4px')}</p>` +
    `<p style="font-size:12px;color:#666">${escapeHtml(action.url)}</p><p style="font-size:12px;color:#666">${link(unsubscribe, 'color:#666')}</p></body></html>`;
  return { subject: content.subject, text, html };
}

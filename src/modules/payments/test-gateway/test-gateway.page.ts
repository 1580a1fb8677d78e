// The HTML of the test gateway's payment page: one self-contained document (no script, no outside
// asset), its only style allowed by its hash in the page's own Content-Security-Policy.
import { createHash } from 'node:crypto';
import type { TestGatewayPayment } from './test-gateway.repository.js';
import { escapeHtml } from '../../../infra/html.js';

const STYLE = `
body { font-family: system-ui, sans-serif; background: #f4f4f6; color: #1d1d1f; margin: 0; }
main { max-width: 28rem; margin: 3rem auto; background: #fff; border-radius: 8px; padding: 1.5rem 2rem; box-shadow: 0 1px 4px #0002; }
.banner { background: #fff3cd; border: 1px solid #e0c36a; padding: .5rem .75rem; border-radius: 4px; font-size: .9rem; }
dl { display: grid; grid-template-columns: auto 1fr; gap: .25rem 1rem; }
dt { color: #666; } dd { margin: 0; font-weight: 600; }
form { display: flex; gap: .5rem; margin-top: 1.5rem; }
button { flex: 1; font-size: 1rem; padding: .6rem; border-radius: 4px; border: 1px solid #888; background: #eee; cursor: pointer; }
button[value=pay] { background: #1a7f37; border-color: #1a7f37; color: #fff; }
button[value=decline] { background: #b42318; border-color: #b42318; color: #fff; }
`;

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * The page's policy: nothing loads but its own style, and no other site may frame a page that
 * takes a payment. No form-action: browsers apply it to every redirect after the form is sent, and
 * the shop's return URL sends the browser on to a page the gateway cannot know (this service's
 * return redirects to the front-end, another origin), which form-action would block, leaving the
 * shopper on this page. The page runs no script and its only form posts to itself.
 */
export function pageSecurityPolicy(): string {
  return ["default-src 'none'", `style-src ${STYLE_HASH}`, "frame-ancestors 'none'", "base-uri 'none'"].join('; ');
}

const STATE_TEXT: Record<TestGatewayPayment['state'], string> = {
  pending: 'waiting for your answer',
  settled: 'paid',
  failed: 'declined',
  abandoned: 'cancelled',
  refunded: 'paid and refunded',
};

/**
 * The page of a payment: Pay, Decline and Cancel while it is pending, else its outcome and a link back
 * (neither for a saved card's charge, which no shopper made: `backUrl` null).
 */
export function paymentPage(payment: TestGatewayPayment, backUrl: string | null): string {
  const details = `
  <dl>
    <dt>Order</dt><dd id="order-reference">${escapeHtml(payment.order_reference)}</dd>
    <dt>Amount</dt><dd id="amount">${formatAmount(Number(payment.amount_cents))} ${escapeHtml(payment.currency)}</dd>
    <dt>Status</dt><dd id="state">${STATE_TEXT[payment.state]}</dd>
  </dl>`;
  const actions =
    backUrl === null
      ? `
  <p>The shop charged a saved card: there is nothing to press.</p>`
      : payment.state === 'pending'
        ? `
  <form method="post">
    <button type="submit" name="action" value="pay">Pay</button>
    <button type="submit" name="action" value="decline">Decline</button>
    <button type="submit" name="action" value="cancel">Cancel</button>
  </form>`
        : `
  <p>This payment is finished. <a href="${escapeHtml(backUrl)}">Back to the shop</a></p>`;
  return document('Test payment', `${details}${actions}`);
}

/** A page for an answer other than the payment's own (unknown payment, bad request). */
export function messagePage(title: string, message: string): string {
  return document(title, `\n  <p>${escapeHtml(message)}</p>`);
}

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · test payment gateway</title>
<style>${STYLE}</style>
</head>
<body>
<main>
  <p class="banner" role="note"><strong>Test payment page.</strong> No real money is taken or moved: this page only simulates a bank.</p>
  <h1>${escapeHtml(title)}</h1>${body}
</main>
</body>
</html>
`;
}

/** 1234 -> "12.34". */
export function formatAmount(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

import { createApiKey } from '../../src/modules/admin/api-keys.service.js';
import type { TestApp } from '../helpers/test-app.js';

/** Imports NDJSON lines of a kind over POST /admin/import/:kind, as the back office does. */
export async function importLines(t: TestApp, kind: string, lines: unknown[]) {
  const key = await createApiKey(t.database.db, `test-${kind}-${Math.random().toString(36).slice(2)}`, Date.now());
  const response = await t.app.inject({
    method: 'POST',
    url: `/admin/import/${kind}`,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/x-ndjson' },
    payload: lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'),
  });
  return response;
}

/** A delivery-methods line: free delivery by e-mail, for a basket of e-books only (filed under COURIER, as the demo's). */
export const EMAIL_DELIVERY_LINE = {
  code: 'EMAIL',
  kind: 'COURIER',
  names: { et: 'E-postiga' },
  prices: [{ store: 'WEB', price: 0 }],
  suitsDigitalOnly: true,
  daysMin: 0,
  daysMax: 0,
};

/** A delivery-methods line: DPD's parcel machines, not for heavy baskets. */
export const DPD_LINE = {
  code: 'DPD',
  kind: 'PARCEL_MACHINE',
  carrier: 'DPD',
  names: { et: 'DPD pakiautomaat' },
  prices: [{ store: 'WEB', price: 3.49 }],
  daysMin: 1,
  daysMax: 2,
  suitsHeavy: false,
};

/** A delivery-methods line: abroad, with a fee of its own for Latvia and Finland. */
export const WORLD_LINE = {
  code: 'WORLD',
  kind: 'INTERNATIONAL',
  names: { et: 'Välismaale' },
  prices: [{ store: 'WEB', price: 15 }],
  countryFees: [
    { country: 'LV', price: 7.5 },
    { country: 'FI', price: 12 },
  ],
  daysMin: 3,
  daysMax: 10,
};

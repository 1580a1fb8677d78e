import type { ImportKind } from '../../infra/import/index.js';
import { deliveryMethodsKind, parcelMachinesKind } from './delivery/delivery.import.js';
import { discountCodesKind } from './discount-codes/discount-code.import.js';

/** The basket's import kinds: discount codes, delivery methods (after shops), parcel machines. */
export const basketImportKinds: Record<string, ImportKind> = {
  'discount-codes': discountCodesKind,
  'delivery-methods': deliveryMethodsKind,
  'parcel-machines': parcelMachinesKind,
};

import type { Db } from '../../db/database.js';
import type { Language } from '../../i18n/index.js';
import { toWireMoney } from '../pricing/index.js';
import { plansOfStore, type PlanRow } from './subscriptions.repository.js';

/** The plan's title in `language`, else Estonian (the import requires it). */
export function titleOf(plan: PlanRow, language: Language): string {
  const titles = JSON.parse(plan.titles) as Partial<Record<Language, string | null>>;
  return titles[language] ?? titles.et ?? plan.code;
}

export function planWire(plan: PlanRow, language: Language) {
  return {
    id: Number(plan.id),
    code: plan.code,
    kind: plan.kind,
    title: titleOf(plan, language),
    creditsPerMonth: plan.credits_per_month,
    shelfSize: plan.shelf_size,
    monthlyPrice: toWireMoney(plan.price_cents),
    trialDays: plan.trial_days,
    stores: plan.stores.split(','),
  };
}

export async function listPlans(db: Db, storeCode: string, language: Language) {
  return (await plansOfStore(db, storeCode)).map((plan) => planWire(plan, language));
}

import type { Plan } from '../../shared/schemas/campaign.js';
import type { Db, Trx } from '../db/knex.js';
import type { PlanRow } from '../db/rows.js';
import { conflictsAs } from './uniqueConflict.js';

function toPlan(row: PlanRow): Plan {
  return {
    id: row.id,
    name: row.name,
    maxAffiliates: row.max_affiliates,
    maxMonthlyConversions: row.max_monthly_conversions,
  };
}

export async function listPlans(db: Db | Trx): Promise<Plan[]> {
  const rows = await db<PlanRow>('plans').select('*').orderBy('id');
  return rows.map(toPlan);
}

export async function findPlanByName(db: Db | Trx, name: string): Promise<Plan | undefined> {
  const row = await db<PlanRow>('plans').where({ name }).first();
  return row && toPlan(row);
}

export async function insertPlan(
  db: Db | Trx,
  plan: { name: string; maxAffiliates: number | null; maxMonthlyConversions: number | null },
): Promise<Plan> {
  const [id] = await conflictsAs({ name: 'planName' }, () =>
    db('plans').insert({
      name: plan.name,
      max_affiliates: plan.maxAffiliates,
      max_monthly_conversions: plan.maxMonthlyConversions,
      created_at: new Date(),
    }),
  );
  return { id: Number(id), ...plan };
}

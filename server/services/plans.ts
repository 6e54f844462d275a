import type { Plan } from '../../shared/schemas/campaign.js';
import { OPERATOR_LIMITS } from '../../shared/vocabulary.js';
import { ConflictError, ValidationError } from '../errors.js';
import { insertPlan, listPlans } from '../repositories/plans.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import { inTransaction } from '../db/knex.js';
import { recordAudit } from './audit.js';
import type { ServiceDeps } from './deps.js';

export interface PlanService {
  create(input: { name: string; maxAffiliates: number | null; maxMonthlyConversions: number | null }): Promise<Plan>;
  list(): Promise<Plan[]>;
}

export function planService({ db, now }: ServiceDeps): PlanService {
  return {
    async create(input) {
      const name = input.name.trim();
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
        throw new ValidationError('plan name must be 1 to 64 letters, digits, "-" or "_"');
      }
      for (const limit of [input.maxAffiliates, input.maxMonthlyConversions]) {
        if (limit !== null && (!Number.isInteger(limit) || limit < 0 || limit > OPERATOR_LIMITS.planLimit)) {
          throw new ValidationError(
            `plan limits must be whole numbers from 0 to ${OPERATOR_LIMITS.planLimit}, or unlimited`,
          );
        }
      }
      try {
        return await inTransaction(db, async (trx) => {
          const plan = await insertPlan(trx, { ...input, name });
          // A plan belongs to no campaign: its row is the operator's, listed by none of them.
          await recordAudit(trx, now(), [{ campaignId: null, action: 'plan.create', targetId: plan.name }]);
          return plan;
        });
      } catch (err) {
        if (err instanceof UniqueConflict) throw new ConflictError(`A plan named "${name}" already exists`);
        throw err;
      }
    },
    list: () => listPlans(db),
  };
}

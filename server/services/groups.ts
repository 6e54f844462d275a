import { MESSAGES } from '../../shared/errors.js';
import { toCents } from '../../shared/money.js';
import type {
  CreateGroupInput,
  Group,
  GroupList,
  ListGroupsQuery,
  UpdateGroupInput,
} from '../../shared/schemas/group.js';
import { inTransaction } from '../db/knex.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { findAffiliatesWithTotals } from '../repositories/affiliates.js';
import {
  affiliateIdsInGroup,
  deleteGroup,
  findGroup,
  type GroupFields,
  insertGroup,
  listGroups,
  lockGroup,
  updateGroup,
} from '../repositories/groups.js';
import { productRatesOf, rateOf } from '../repositories/ruleColumns.js';
import { UniqueConflict } from '../repositories/uniqueConflict.js';
import { fieldsOf, recordAudit } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { pageOf } from './pages.js';
import type { Outbox } from './webhooks/outbox.js';

export interface GroupService {
  create(campaignId: number, input: CreateGroupInput): Promise<Group>;
  list(campaignId: number, query: ListGroupsQuery): Promise<GroupList>;
  get(campaignId: number, id: number): Promise<Group>;
  update(campaignId: number, id: number, input: UpdateGroupInput): Promise<Group>;
  /** Deletes the group; its affiliates earn by the campaign's rule again (spec §12.1). */
  remove(campaignId: number, id: number): Promise<void>;
}

const taken = (err: unknown) =>
  err instanceof UniqueConflict && err.field === 'groupName' ? new ConflictError(MESSAGES.groupNameTaken) : undefined;

/** Groups of affiliates and their rules (docs/commissions.md#groups). A change applies to conversions to come. */
export function groupService({ db, now }: ServiceDeps, outbox: Outbox): GroupService {
  async function load(campaignId: number, id: number): Promise<Group> {
    const group = await findGroup(db, campaignId, id);
    if (!group) throw new NotFoundError(MESSAGES.groupNotFound);
    return group;
  }

  return {
    async create(campaignId, input) {
      const fields: GroupFields = {
        name: input.name,
        rule: {
          rate: rateOf(input),
          products: productRatesOf(input.products ?? []),
          recurring: input.recurring ?? null,
          secondTierHundredths: input.secondTierPercent == null ? null : toCents(input.secondTierPercent),
        },
      };
      try {
        const id = await inTransaction(db, async (trx) => {
          const created = await insertGroup(trx, campaignId, fields, now());
          await recordAudit(trx, now(), [
            { campaignId, action: 'group.create', targetId: created, fields: fieldsOf(input) },
          ]);
          return created;
        });
        return await load(campaignId, id);
      } catch (err) {
        throw taken(err) ?? err;
      }
    },

    async list(campaignId, query) {
      const { groups, total } = await listGroups(db, campaignId, query);
      return { groups, ...pageOf(query, total) };
    },

    get: load,

    async update(campaignId, id, input) {
      try {
        await inTransaction(db, async (trx) => {
          const current = await lockGroup(trx, campaignId, id);
          if (!current) throw new NotFoundError(MESSAGES.groupNotFound);
          const type = input.commissionType ?? current.rule.rate.type;
          const rate =
            input.commissionValue === undefined
              ? { type, hundredths: current.rule.rate.hundredths }
              : rateOf({ commissionType: type, commissionValue: input.commissionValue });
          // The schema checks a type and a value sent together; one sent alone meets the stored other here.
          if (rate.type === 'percent' && rate.hundredths > 10_000) throw new ValidationError([MESSAGES.percentOver100]);
          const percent = input.secondTierPercent;
          await updateGroup(
            trx,
            campaignId,
            id,
            {
              name: input.name ?? current.name,
              rule: {
                rate,
                products: input.products === undefined ? current.rule.products : productRatesOf(input.products),
                recurring: input.recurring === undefined ? current.rule.recurring : input.recurring,
                secondTierHundredths:
                  percent === undefined
                    ? current.rule.secondTierHundredths
                    : percent === null
                      ? null
                      : toCents(percent),
              },
            },
            now(),
          );
          await recordAudit(trx, now(), [
            { campaignId, action: 'group.update', targetId: id, fields: fieldsOf(input) },
          ]);
        });
      } catch (err) {
        throw taken(err) ?? err;
      }
      return load(campaignId, id);
    },

    async remove(campaignId, id) {
      await inTransaction(db, async (trx) => {
        const members = await affiliateIdsInGroup(trx, campaignId, id);
        if ((await deleteGroup(trx, campaignId, id)) === 0) throw new NotFoundError(MESSAGES.groupNotFound);
        // The foreign key set their group to null: each is reported as the API now answers it.
        const affiliates = await findAffiliatesWithTotals(trx, campaignId, members);
        await outbox.record(
          trx,
          affiliates.map((affiliate) => ({ campaignId, type: 'affiliate.updated' as const, data: affiliate })),
        );
        await recordAudit(trx, now(), [
          { campaignId, action: 'group.delete', targetId: id, figures: { affiliates: members.length } },
        ]);
      });
    },
  };
}

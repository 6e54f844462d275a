import { isReversed, rangeBounds } from '../../shared/dateRange.js';
import { MESSAGES } from '../../shared/errors.js';
import type {
  BulkResult,
  BulkUpdateConversionsInput,
  BulkUpdateConversionsResponse,
  Conversion,
  ConversionList,
  ListConversionsQuery,
  SettableConversionStatus,
} from '../../shared/schemas/conversion.js';
import { MAX_BULK_CONVERSIONS } from '../../shared/schemas/conversion.js';
import { inLockingTransaction, type Trx } from '../db/knex.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import {
  countPendingBefore,
  findConversion,
  findConversions,
  listConversions,
  lockConversions,
  lockPendingBefore,
  moveConversions,
} from '../repositories/conversions.js';
import { judgeTransition } from './conversionRules.js';
import { followSales, type SaleChange } from './followers.js';
import { recordAudit } from './audit.js';
import type { ServiceDeps } from './deps.js';
import { pageOf } from './pages.js';
import type { Outbox, OutboxEvent } from './webhooks/outbox.js';

export interface ConversionService {
  list(campaignId: number, query: ListConversionsQuery): Promise<ConversionList>;
  get(campaignId: number, id: number): Promise<Conversion>;
  /** `PATCH /v1/conversions/{id}`: one conditional update in one transaction. */
  update(campaignId: number, id: number, to: SettableConversionStatus): Promise<Conversion>;
  /** The bulk form: ids, or the oldest pending conversions matching a filter. */
  bulkUpdate(campaignId: number, input: BulkUpdateConversionsInput): Promise<BulkUpdateConversionsResponse>;
  /**
   * The hold period: takes up to `limit` pending conversions that arrived before `cutoff` and
   * approves them; says how many it took and how many it approved (a concurrent reject wins).
   */
  approvePendingBefore(campaignId: number, cutoff: Date, limit: number): Promise<{ taken: number; approved: number }>;
}

/** Conversions locked and changed per transaction: locks are held briefly, and a long run commits as it goes. */
const PER_TRANSACTION = 500;

const eventOf = { approved: 'conversion.approved', rejected: 'conversion.rejected' } as const;
const auditOf = { approved: 'conversion.approve', rejected: 'conversion.reject' } as const;

export function conversionService({ db, now: clock }: ServiceDeps, outbox: Outbox): ConversionService {
  /**
   * Moves the campaign's conversions among `ids` to `to` inside `trx`: row locks, the rule,
   * one conditional update, then the rows as they are now, so each id's outcome is what
   * happened to it, and one outbox event per changed conversion.
   */
  async function moveInTransaction(
    trx: Trx,
    campaignId: number,
    ids: readonly number[],
    to: SettableConversionStatus,
  ): Promise<BulkResult[]> {
    const rows = await lockConversions(trx, campaignId, ids);
    const locked = new Map(rows.map((row) => [row.id, row]));
    const movable = ids.filter((id) => {
      const row = locked.get(id);
      return row && judgeTransition(row, to).kind === 'move';
    });
    const at = clock();
    await moveConversions(trx, campaignId, movable, to, at);
    // spec §12.5: each moved sale's second-tier conversion moves with it, in this transaction,
    // before the outcomes are read, so a follower named in the request answers as it now is.
    const moved = new Set(
      (await findConversions(trx, campaignId, movable)).filter((c) => c.status === to).map((c) => c.id),
    );
    const followed = await followSales(
      trx,
      campaignId,
      new Map([...moved].map((id) => [id, { kind: to } as const satisfies SaleChange])),
      at,
    );
    const after = await findConversions(trx, campaignId, [...locked.keys()]);
    const now = new Map(after.map((conversion) => [conversion.id, conversion]));
    const results: BulkResult[] = [];
    const changes: OutboxEvent[] = [];
    for (const id of ids) {
      const conversion = now.get(id);
      if (!conversion) {
        results.push({ id, outcome: 'not_found', status: null, message: MESSAGES.conversionNotFound });
        continue;
      }
      if (moved.has(id)) {
        results.push({ id, outcome: 'updated', status: to });
        changes.push({ type: eventOf[to], campaignId, data: conversion });
        continue;
      }
      const judgement = judgeTransition(conversion, to);
      results.push(
        judgement.kind === 'conflict'
          ? { id, outcome: 'conflict', status: conversion.status, message: judgement.message }
          : { id, outcome: 'unchanged', status: conversion.status },
      );
    }
    await outbox.record(trx, [...changes, ...followed]);
    await recordAudit(
      trx,
      at,
      [...moved].map((id) => ({ campaignId, action: auditOf[to], targetId: id, fields: ['status'] })),
    );
    return results;
  }

  function summary(results: BulkResult[], remaining: number | null): BulkUpdateConversionsResponse {
    const count = (outcome: BulkResult['outcome']) => results.filter((r) => r.outcome === outcome).length;
    const updated = count('updated');
    const unchanged = count('unchanged');
    return { results, updated, unchanged, failed: results.length - updated - unchanged, remaining };
  }

  async function bulkByIds(campaignId: number, ids: readonly number[], to: SettableConversionStatus) {
    const unique = [...new Set(ids)];
    const results: BulkResult[] = [];
    for (let start = 0; start < unique.length; start += PER_TRANSACTION) {
      const part = unique.slice(start, start + PER_TRANSACTION);
      const moved = await inLockingTransaction(db, (trx) => moveInTransaction(trx, campaignId, part, to));
      results.push(...moved);
    }
    return summary(results, null);
  }

  /** Oldest first, locked as they are picked (on MySQL, skipping rows another request holds). */
  async function movePending(
    campaignId: number,
    filter: { before?: Date; affiliateId?: number; unflagged?: boolean },
    to: SettableConversionStatus,
    limit: number,
  ): Promise<BulkResult[]> {
    const results: BulkResult[] = [];
    while (results.length < limit) {
      const take = Math.min(PER_TRANSACTION, limit - results.length);
      const part = await inLockingTransaction(db, async (trx) => {
        const ids = await lockPendingBefore(trx, campaignId, { ...filter, limit: take });
        return moveInTransaction(trx, campaignId, ids, to);
      });
      results.push(...part);
      if (part.length < take) break;
    }
    return results;
  }

  return {
    async list(campaignId, query) {
      // One rule for date ranges (shared/dateRange.ts): both ends included, a date is its whole UTC day.
      const { from, to, ...filters } = query;
      if (isReversed(from, to)) throw new ValidationError([MESSAGES.rangeReversed(from ?? '', to ?? '')]);
      const { start, end } = rangeBounds(from, to);
      const { conversions, total } = await listConversions(db, campaignId, { ...filters, from: start, before: end });
      return { conversions, ...pageOf(query, total) };
    },

    async get(campaignId, id) {
      const conversion = await findConversion(db, campaignId, id);
      if (!conversion) throw new NotFoundError(MESSAGES.conversionNotFound);
      return conversion;
    },

    async update(campaignId, id, to) {
      return inLockingTransaction(db, async (trx) => {
        // A payout that fails meanwhile can make a refused move legal: judge again, a few times.
        for (let attempt = 1; ; attempt++) {
          const at = clock();
          const changed = await moveConversions(trx, campaignId, [id], to, at);
          const conversion = await findConversion(trx, campaignId, id);
          if (!conversion) throw new NotFoundError(MESSAGES.conversionNotFound);
          if (changed > 0) {
            const followers = await followSales(trx, campaignId, new Map([[id, { kind: to }]]), at);
            await outbox.record(trx, [{ type: eventOf[to], campaignId, data: conversion }, ...followers]);
            await recordAudit(trx, at, [{ campaignId, action: auditOf[to], targetId: id, fields: ['status'] }]);
            return conversion;
          }
          const judgement = judgeTransition(conversion, to);
          if (judgement.kind === 'unchanged') return conversion;
          if (judgement.kind === 'conflict') throw new ConflictError(judgement.message);
          if (attempt >= 3) throw new ConflictError(MESSAGES.illegalTransition('Conversion', conversion.status, to));
        }
      });
    },

    async bulkUpdate(campaignId, input) {
      if (input.ids) return bulkByIds(campaignId, input.ids, input.status);
      const filter = {
        before: input.filter?.before === undefined ? undefined : new Date(input.filter.before),
        affiliateId: input.filter?.affiliateId,
      };
      const limit = input.limit ?? MAX_BULK_CONVERSIONS;
      const results = await movePending(campaignId, filter, input.status, limit);
      return summary(results, await countPendingBefore(db, campaignId, filter));
    },

    async approvePendingBefore(campaignId, cutoff, limit) {
      // spec §12.7: a flagged conversion waits for a person, whatever the hold period.
      const results = await movePending(campaignId, { before: cutoff, unflagged: true }, 'approved', limit);
      return { taken: results.length, approved: results.filter((r) => r.outcome === 'updated').length };
    },
  };
}

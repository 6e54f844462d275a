import { setImmediate as nextTurn } from 'node:timers/promises';
import { MESSAGES } from '../../../shared/errors.js';
import { fromCents, toCents } from '../../../shared/money.js';
import type { Payout } from '../../../shared/schemas/payout.js';
import type { PayoutRun, PayoutRunLine, StartPayoutRunInput } from '../../../shared/schemas/payoutRun.js';
import { inTransaction } from '../../db/knex.js';
import { ConflictError, HttpError, NotFoundError } from '../../errors.js';
import { findCampaign, payoutApprovalAboveCents } from '../../repositories/campaigns.js';
import { connectedRails } from '../../repositories/payoutRails.js';
import {
  approvePayoutRun,
  closeCreating,
  findPayoutRun,
  insertPayoutRun,
  markRunSent,
  payableBalances,
  payoutRunsWithStatus,
  payoutTotalsOfRun,
  pendingPayoutIdsOfRun,
  type StoredPayoutRun,
} from '../../repositories/payoutRuns.js';
import { currentActor, recordAudit } from '../audit.js';
import type { ServiceDeps } from '../deps.js';
import type { PayoutService } from '../payouts.js';
import { planRun } from './runPlan.js';
import type { PayoutSender } from './send.js';

export type { StoredPayoutRun };

export interface PayoutRunService {
  /**
   * `POST /v1/payout-runs`: a payout for every affiliate whose balance reaches the minimum and
   * who can be paid on a connected rail, then each sent; or, when the total is above the
   * campaign's `payoutApprovalAbove`, the payouts kept pending until a second person approves.
   */
  start(campaignId: number, input: StartPayoutRunInput): Promise<PayoutRun>;
  /** The dashboard's approval by `userId`, who must not have started the run: once, then its payouts are sent. */
  approve(campaignId: number, runId: number, userId: number): Promise<{ run: StoredPayoutRun; sent: number }>;
  /** Runs waiting for a second person, newest first. */
  awaitingApproval(campaignId: number): Promise<StoredPayoutRun[]>;
  /**
   * A run a crash stopped while `creating` or `sending`: closed as `start` would have (awaiting
   * approval above the threshold), then its pending payouts sent. Answers how many it sent.
   */
  resume(run: StoredPayoutRun): Promise<number>;
}

/** A created payout as a run lists it: the rail it was sent on, or (still pending) the one it will be. */
const lineOf = (payout: Payout, planned: PayoutRunLine['rail'] | null): PayoutRunLine => ({
  affiliateId: payout.affiliateId,
  affiliateName: payout.affiliateName,
  affiliateEmail: payout.affiliateEmail,
  rail: payout.rail ?? planned ?? payout.payoutMethod ?? 'pix',
  amount: payout.amount,
  payoutId: payout.id,
  status: payout.status,
});

/**
 * Payout runs (docs/payouts.md#payout-runs), built on `payouts.create`, the service a person
 * uses one payout at a time (one transaction per affiliate under its row lock, the conversions
 * taken by one conditional update: two runs at once never pay a conversion twice, the later
 * one finds nothing to pay and leaves that affiliate out), and `payoutSender.sendPending` (each
 * intent committed by a conditional update before the send queue calls the provider, a few
 * payouts a transaction).
 */
export function payoutRunService(
  { db, now: clock }: ServiceDeps,
  payouts: PayoutService,
  sender: PayoutSender,
): PayoutRunService {
  /** Sends each payout; one the plan now refuses (a rail removed meanwhile) stays pending, as it is. */
  async function sendAll(campaignId: number, ids: readonly number[]): Promise<Payout[]> {
    return (await sender.sendPending(campaignId, ids)).map((answer) => answer.payout);
  }

  return {
    async start(campaignId, input) {
      const found = await findCampaign(db, campaignId);
      if (!found) throw new NotFoundError(MESSAGES.payoutRunNotFound);
      const { currency, payoutMinimum } = found.campaign;
      const balances = await payableBalances(db, campaignId);
      const connected = await connectedRails(db, campaignId);
      const plan = planRun(balances, { minimumCents: toCents(payoutMinimum), currency, connected }, input.rail);
      const answer = { rail: input.rail ?? null, currency, leftOut: plan.leftOut };
      if (input.dryRun || plan.pay.length === 0) {
        const payoutLines = plan.pay.map(({ balance, rail, cents }) => ({
          affiliateId: balance.affiliateId,
          affiliateName: balance.affiliateName,
          affiliateEmail: balance.affiliateEmail,
          rail,
          amount: fromCents(cents),
          payoutId: null,
          status: null,
        }));
        const total = fromCents(plan.pay.reduce((sum, payee) => sum + payee.cents, 0));
        const status = input.dryRun ? ('dry_run' as const) : ('empty' as const);
        return { id: null, status, ...answer, total, payouts: payoutLines, createdAt: null };
      }

      const actor = currentActor();
      const startedAt = clock();
      const runId = await insertPayoutRun(db, {
        campaignId,
        rail: input.rail ?? null,
        startedBy: { type: actor.type, id: actor.id },
        now: startedAt,
      });
      const created: Payout[] = [];
      for (const payee of plan.pay) {
        // better-sqlite3 answers every query on this thread at once: without a turn of the event
        // loop between payouts, a run's thousand transactions were one unbroken chain of promise
        // callbacks, and no request (intake's among them) was even read until the run answered.
        await nextTurn();
        try {
          created.push(await payouts.create(campaignId, payee.balance.affiliateId, { payoutRunId: runId }));
        } catch (err) {
          // Another run (or a person) paid it meanwhile, or its balance changed: not this run's.
          if (!(err instanceof HttpError)) throw err;
        }
      }
      const cents = created.reduce((sum, payout) => sum + toCents(payout.amount), 0);
      // The threshold is read now, against what was created: a person approves what will be sent.
      const above = await payoutApprovalAboveCents(db, campaignId);
      const waits = above !== null && cents > above;
      await inTransaction(db, async (trx) => {
        await closeCreating(trx, runId, waits ? 'awaiting_approval' : 'sending', { cents, count: created.length });
        await recordAudit(trx, clock(), [
          {
            campaignId,
            action: 'payout_run.start',
            targetId: runId,
            figures: { payouts: created.length, leftOut: plan.leftOut.length },
            money: { total: cents },
          },
        ]);
      });
      const railOf = new Map(plan.pay.map((payee) => [payee.balance.affiliateId, payee.rail]));
      const shown = waits
        ? created
        : await sendAll(
            campaignId,
            created.map((payout) => payout.id),
          );
      if (!waits) await markRunSent(db, runId);
      return {
        id: runId,
        status: waits ? 'awaiting_approval' : 'sent',
        ...answer,
        total: fromCents(cents),
        payouts: shown.map((payout) => lineOf(payout, railOf.get(payout.affiliateId) ?? null)),
        createdAt: startedAt.toISOString(),
      };
    },

    async approve(campaignId, runId, userId) {
      const approved = await inTransaction(db, async (trx) => {
        if (!(await approvePayoutRun(trx, campaignId, runId, userId, clock()))) return false;
        await recordAudit(trx, clock(), [{ campaignId, action: 'payout_run.approve', targetId: runId }]);
        return true;
      });
      if (!approved) {
        const run = await findPayoutRun(db, campaignId, runId);
        if (!run) throw new NotFoundError(MESSAGES.payoutRunNotFound);
        if (run.status === 'awaiting_approval') throw new ConflictError(MESSAGES.payoutRunSameUser);
        throw new ConflictError(MESSAGES.payoutRunNotAwaiting(run.status.replace('_', ' ')));
      }
      const ids = await pendingPayoutIdsOfRun(db, campaignId, runId);
      const sent = await sendAll(campaignId, ids);
      await markRunSent(db, runId);
      const run = await findPayoutRun(db, campaignId, runId);
      if (!run) throw new NotFoundError(MESSAGES.payoutRunNotFound);
      return { run, sent: sent.filter((payout) => payout.status !== 'pending').length };
    },

    awaitingApproval: (campaignId) => payoutRunsWithStatus(db, campaignId, 'awaiting_approval', 20),

    async resume(run) {
      if (run.status === 'creating') {
        const totals = await payoutTotalsOfRun(db, run.id);
        const above = await payoutApprovalAboveCents(db, run.campaignId);
        const waits = above !== null && totals.cents > above;
        // One conditional update: of several daemons resuming it, one closes it; the others go on
        // to its pending payouts, each claimed by its own conditional update as it is sent.
        await closeCreating(db, run.id, waits ? 'awaiting_approval' : 'sending', totals);
        if (waits) return 0;
      }
      // Sent meanwhile by another daemon, or refused by the plan (a rail removed): left as it is.
      const ids = await pendingPayoutIdsOfRun(db, run.campaignId, run.id);
      const sent = (await sender.sendPending(run.campaignId, ids)).filter((answer) => answer.sent).length;
      await markRunSent(db, run.id);
      return sent;
    },
  };
}

import type { ApiClient } from '../../../shared/client/index.js';
import type { PayoutRun } from '../../../shared/schemas/payoutRun.js';
import type { PayoutRailName } from '../../../shared/schemas/payoutRail.js';
import { UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { amountCell, moneyText } from '../../money.js';
import { type GlobalOptions, note, plural, printJson, printLine, printTable } from '../../output.js';
import { confirmOrDecline } from '../../prompts.js';

/** Who a run pays (or would pay), then who it leaves out and why: amounts in the campaign's currency. */
function show(io: Io, run: PayoutRun): void {
  if (run.payouts.length > 0) {
    printTable(
      io,
      ['affiliate', 'name', 'email', 'rail', `amount (${run.currency})`, 'payout', 'status'],
      run.payouts.map((line) => [
        line.affiliateId,
        line.affiliateName,
        line.affiliateEmail,
        line.rail,
        amountCell(line.amount, run.currency),
        line.payoutId,
        line.status,
      ]),
    );
  }
  if (run.leftOut.length > 0) {
    note(io, `Left out (${plural(run.leftOut.length, 'affiliate')}):`);
    for (const left of run.leftOut) {
      note(io, `  ${left.affiliateId} ${left.affiliateEmail} ${moneyText(left.amount, run.currency)}: ${left.message}`);
    }
  }
}

const summary = (run: PayoutRun) =>
  `${plural(run.payouts.length, 'affiliate')}, ${moneyText(run.total, run.currency)} in all`;

/**
 * `payouts run` (docs/payouts.md#payout-runs): on a terminal the dry run's table first, then a
 * confirmation (`--yes` skips it and is required off a terminal); `--dry-run` only shows it.
 */
export async function run(
  io: Io,
  client: ApiClient,
  options: GlobalOptions,
  flags: { dryRun?: boolean; rail?: PayoutRailName; yes?: boolean },
): Promise<void> {
  const body = flags.rail === undefined ? {} : { rail: flags.rail };
  if (flags.dryRun || !flags.yes) {
    // Off a terminal without --yes: refused before anything is asked of the daemon.
    if (!flags.dryRun && !io.interactive) throw new UsageError('--yes is required when not running interactively');
    const plan = await client.payouts.run({ body: { ...body, dryRun: true } });
    if (flags.dryRun) {
      if (options.json) return printJson(io, plan);
      show(io, plan);
      return printLine(io, plan.payouts.length === 0 ? 'Nothing to pay.' : `Would pay ${summary(plan)}.`);
    }
    if (!options.json) show(io, plan);
    if (plan.payouts.length === 0) {
      if (options.json) return printJson(io, plan);
      return printLine(io, 'Nothing to pay.');
    }
    await confirmOrDecline(io, flags, `Pay ${summary(plan)} now?`, 'Nothing paid.');
  }
  const answer = await client.payouts.run({ body });
  if (options.json) return printJson(io, answer);
  show(io, answer);
  if (answer.status === 'empty') return printLine(io, 'Nothing to pay.');
  if (answer.status === 'awaiting_approval') {
    return printLine(
      io,
      `Payout run ${answer.id} of ${summary(answer)} is above the campaign's approval threshold: it waits for a second owner or admin to approve it on the dashboard's payouts page.`,
    );
  }
  printLine(io, `Payout run ${answer.id}: sent ${summary(answer)}; \`payouts list --status processing\` follows them.`);
}

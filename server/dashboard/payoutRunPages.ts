import type { FormFields } from '../services/portal/index.js';
import { type DashPage, redirect } from './page.js';
import { idParam } from './query.js';

type Actor = NonNullable<DashPage['actor']>;

/** The payouts page's run form (docs/dashboard.md): a payout run as `POST /v1/payout-runs` makes it, by this user. */
export async function postStartPayoutRun(page: DashPage, actor: Actor): Promise<void> {
  const run = await page.services.dashboard.runPayouts(actor, false);
  if (run.status === 'awaiting_approval') return redirect(page, `/payouts?notice=runWaiting&n=${run.id ?? 0}`);
  redirect(page, `/payouts?notice=runSent&n=${run.payouts.length}`);
}

/** The second person's approval of a run awaiting it; the starter, or a second click, is refused with its reason. */
export async function postApprovePayoutRun(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (!id.success) return redirect(page, '/payouts');
  const { sent } = await page.services.dashboard.approvePayoutRun(actor, id.data);
  redirect(page, `/payouts?notice=runApproved&n=${sent}`);
}

/** One pending payout sent on the rail of its affiliate's details, as `POST /v1/payouts/{id}/send`; a refusal says why (409). */
export async function postSendPayout(page: DashPage, actor: Actor, fields: FormFields): Promise<void> {
  const id = idParam.safeParse(fields.id);
  if (!id.success) return redirect(page, '/payouts');
  const sent = await page.services.dashboard.sendPayout(actor, id.data);
  redirect(page, `/payouts?notice=payoutSent&n=${sent.id}`);
}

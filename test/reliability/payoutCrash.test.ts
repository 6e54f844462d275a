import { expect } from 'chai';
import { createMerchant, type Merchant } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import {
  closeRailFakes,
  commitSends,
  type Details,
  railApi,
  railEnv,
  type RailFakes,
  startRailFakes,
} from '../helpers/payoutRails.js';
import { recorder } from './support/recorder.js';
import { SEED, seededRandom } from './support/seed.js';
import { daemonEnv, type ServedDaemon, serve } from './support/served.js';

/** Payouts per rail (PAYOUT_CRASH_PAYOUTS), and daemon kills while they are sent (PAYOUT_CRASH_KILLS). */
const PER_RAIL = Number(process.env.PAYOUT_CRASH_PAYOUTS ?? 50);
const KILLS = Number(process.env.PAYOUT_CRASH_KILLS ?? 8);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Planned {
  id: number;
  rail: 'pix' | 'paypal' | 'stripe';
  /** The fake refuses it (an unknown Pix key, a Stripe account that does not exist). */
  refused: boolean;
}

describe(`payouts sent while the daemon is SIGKILLed (${ENGINE})`, function () {
  this.timeout(20 * 60_000);
  let database: TestDatabase;
  let fakes: RailFakes;
  let daemon: ServedDaemon | undefined;
  let merchant: Merchant;
  let env: Record<string, string>;

  before(async () => {
    database = await createTestDatabase();
    fakes = await startRailFakes();
    env = daemonEnv(database.url, {
      ...railEnv(fakes),
      PAYOUT_PAYPAL_BATCH_MAX: '25',
      PAYOUT_ASAAS_PER_SECOND: '500',
      PAYOUT_STRIPE_PER_SECOND: '500',
      // Long enough that no send gives up waiting for an operator while the daemon keeps dying.
      PAYOUT_RETRY_SCHEDULE: Array.from({ length: 40 }, () => '300ms').join(','),
    });
    merchant = await createMerchant(database.db);
    recorder.secret(merchant.key);
  });
  after(async () => {
    await daemon?.stop('SIGKILL');
    await closeRailFakes(fakes);
    await database?.drop();
  });

  it(`${PER_RAIL * 3} payouts on three rails, ${KILLS} kills at random instants: one transfer each, paid or failed as the provider said`, async () => {
    daemon = await serve(env);
    const { port } = daemon;
    const url = () => daemon?.url ?? '';
    const rails = railApi(
      url,
      () => merchant,
      () => database.db,
    );
    await rails.connect(fakes);
    fakes.asaas.settleInstantly = true;
    fakes.asaas.callbackUrl = `${url()}/v1/integrations/asaas-payouts/${merchant.publicId}`;
    fakes.paypal.callbackUrl = `${url()}/v1/integrations/paypal-payouts/${merchant.publicId}`;
    const planned: Planned[] = [];
    for (let i = 0; i < PER_RAIL; i++) {
      const refused = i % 10 === 7;
      const n = String(i).padStart(4, '0');
      const pix = `+5511900${n}00`;
      if (refused) fakes.asaas.unknownKeys.add(pix);
      const stripe = `acct_1CrashRound${n}`;
      if (!refused) fakes.stripe.accounts.add(stripe);
      const details: Array<[Planned['rail'], Details, boolean]> = [
        ['pix', { method: 'pix', pixKeyType: 'phone', account: pix }, refused],
        ['paypal', { method: 'paypal', account: `crash${n}@example.com` }, false],
        ['stripe', { method: 'stripe', account: stripe }, refused],
      ];
      for (const [rail, detail, no] of details) {
        const { payout } = await rails.pendingPayout(detail, [100 + i]);
        planned.push({ id: payout.id, rail, refused: no });
      }
    }
    // Calls hold for a while, so kills find them in flight.
    for (const fake of [fakes.asaas, fakes.paypal, fakes.stripe]) fake.delayMs = 30;

    const random = seededRandom(SEED + 32);
    const started = Date.now();
    await commitSends(
      database.db,
      merchant.campaignId,
      planned.map((payout) => payout.id),
    );
    let kills = 0;
    const processing = async () =>
      Number(
        (
          await database
            .db('payouts')
            .whereIn(
              'id',
              planned.map((payout) => payout.id),
            )
            .where('status', 'processing')
            .count({ n: '*' })
        )[0]?.n ?? 0,
      );
    while (kills < KILLS && (await processing()) > 0) {
      await sleep(150 + Math.floor(random() * 900));
      await daemon.stop('SIGKILL');
      kills++;
      recorder.count('payout crash: daemon SIGKILLs');
      daemon = await serve(env, port);
    }
    const until = Date.now() + 120_000;
    while ((await processing()) > 0) {
      expect(Date.now(), 'every payout settles within 2 minutes of the last kill').to.be.below(until);
      await sleep(200);
    }
    const seconds = (Date.now() - started) / 1000;
    recorder.count('payout crash: payouts', planned.length);
    console.log(`      ${planned.length} payouts settled in ${seconds.toFixed(1)} s through ${kills} kills`);
    expect(kills, 'the daemon was killed while payouts were in flight').to.be.at.least(Math.min(3, KILLS));

    // What the fake holds for a payout's reference: the receipt of each transfer (or item) it made.
    const receiptsAt = (rail: Planned['rail'], reference: string): Array<string | null | undefined> => {
      if (rail === 'pix') return fakes.asaas.transfersFor(reference).map((transfer) => transfer.endToEndIdentifier);
      if (rail === 'paypal') return fakes.paypal.itemsFor(reference).map((item) => item.transaction_id);
      return fakes.stripe.transfersFor(reference).map((transfer) => transfer.id);
    };
    for (const { id, rail, refused } of planned) {
      const payout = await rails.get(id);
      const what = `payout ${id} (${rail})`;
      const receipts = receiptsAt(rail, payout.reference);
      if (refused) {
        expect(receipts, what).to.have.length(0);
        expect(payout.status, what).to.equal('failed');
      } else {
        expect(receipts, what).to.have.length(1);
        expect(payout, what).to.include({ status: 'paid', receipt: receipts[0] });
      }
    }
  });
});

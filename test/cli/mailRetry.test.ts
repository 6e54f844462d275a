import { expect } from 'chai';
import { insertMails } from '../../server/repositories/mailOutbox.js';
import { MESSAGES } from '../../shared/errors.js';
import { parseJson, runCli } from '../helpers/cli.js';
import { createMerchant } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

/** The job runtime's dead state for mail, as an operator sees and retries it (docs/portal.md#e-mail). */
describe(`mail retry: a failed mail, once more (${ENGINE})`, () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  before(async () => {
    t = await createTestDatabase();
    env = { DATABASE_URL: t.url };
  });
  after(async () => t.drop());

  it('makes a failed mail pending and due now, keeps its attempts, and refuses a mail that is not failed', async () => {
    const { campaignId } = await createMerchant(t.db);
    const at = new Date('2026-11-01T10:00:00Z');
    const mail = { campaignId, affiliateId: null, kind: 'payout_paid', locale: 'en', data: {}, createdAt: at };
    await t.db.transaction((trx) =>
      insertMails(trx, [
        { ...mail, to: 'gave-up@example.com' },
        { ...mail, to: 'waiting@example.com' },
      ]),
    );
    const [failed, waiting] = await t.db('mail_outbox').orderBy('id').pluck('id');
    await t.db('mail_outbox').where('id', failed).update({ status: 'failed', attempt_count: 6, last_error: '550 no' });

    const listed = parseJson<Array<{ id: number }>>(
      await runCli(['mail', 'list', '--status', 'failed', '--json'], { env }),
    );
    expect(listed.map((m) => m.id)).to.deep.equal([failed]);

    const before = Date.now();
    const retried = await runCli(['mail', 'retry', String(failed)], { env });
    expect(retried.code, retried.stderr).to.equal(0);
    expect(retried.stdout).to.include(`Mail ${failed} is pending again, due now.`);
    const pending = parseJson<Array<{ id: number; status: string; attempts: number; nextAttemptAt: string }>>(
      await runCli(['mail', 'list', '--status', 'pending', '--json'], { env }),
    );
    const again = pending.find((m) => m.id === failed);
    expect(again).to.include({ status: 'pending', attempts: 6 });
    expect(new Date(again?.nextAttemptAt ?? 0).getTime()).to.be.within(before - 2000, Date.now() + 1000);

    for (const id of [waiting, 999_999]) {
      const refused = await runCli(['mail', 'retry', String(id)], { env });
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include(MESSAGES.failedMailNotFound(Number(id)));
    }
    expect(await t.db('mail_outbox').where('id', waiting).first()).to.include({ status: 'pending', attempt_count: 0 });
  });
});

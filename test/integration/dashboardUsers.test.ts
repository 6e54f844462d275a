import { expect } from 'chai';
import { actingAs, userActor } from '../../server/services/audit.js';
import type { DashboardActor } from '../../server/services/dashboard/index.js';
import type { Services } from '../../server/services/index.js';
import { createMerchant, type Merchant, servicesFor } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

/**
 * The dashboard's own users as an owner changes them (docs/dashboard.md#users-and-roles): each
 * change is in the audit log as that user, and the campaign's last owner who can log in stays.
 */
describe(`dashboard users: audit rows and the last owner (${ENGINE})`, () => {
  let t: TestDatabase;
  let services: Services;
  let merchant: Merchant;
  before(async () => {
    t = await createTestDatabase();
    services = servicesFor(t.db);
  });
  beforeEach(async () => {
    await cleanTables(t.db);
    merchant = await createMerchant(t.db);
  });
  after(async () => t.drop());

  /** A user made by the operator, its password set as its set-up link would. */
  async function owner(email: string, password = true): Promise<DashboardActor> {
    const made = await services.dashboard.operator.create({ campaign: merchant.publicId, email, role: 'owner' });
    if (made.state !== 'created') throw new Error(made.problem);
    if (password) await t.db('dashboard_users').where({ id: made.user.id }).update({ password_hash: 'x' });
    const { id, campaignId } = made.user;
    return { userId: id, campaignId, email, role: 'owner', totpEnrolled: true, factorPending: false };
  }
  const as = <T>(actor: DashboardActor, work: () => Promise<T>) =>
    actingAs(userActor(actor.userId, '::ffff:203.0.113.5'), work);
  const roleOf = async (id: number) => (await t.db('dashboard_users').where({ id }).first())?.role;

  it('invite, role change and removal are recorded as the owner, with the user id and no e-mail', async () => {
    const boss = await owner('boss@shop.example');
    const invited = await as(boss, () =>
      services.dashboard.invite(boss, { email: 'Viewer@Shop.example', role: 'viewer' }, 'en'),
    );
    if (invited.state !== 'created') throw new Error(invited.problem);
    const id = invited.user.id;
    expect(await as(boss, () => services.dashboard.changeRole(boss, id, 'admin'))).to.equal('done');
    // The same role again changes nothing and records nothing.
    expect(await as(boss, () => services.dashboard.changeRole(boss, id, 'admin'))).to.equal('done');
    expect(await as(boss, () => services.dashboard.removeUser(boss, id))).to.equal('done');

    const rows = await t.db('audit_log').where('target_type', 'user').orderBy('id');
    expect(JSON.stringify(rows).toLowerCase()).not.to.include('shop.example');
    expect(rows.map((r) => [r.action, r.actor_type, r.actor_id, r.target_id, r.address])).to.deep.equal([
      ['user.create', 'system', null, String(boss.userId), null],
      ['user.invite', 'user', String(boss.userId), String(id), '203.0.113.5'],
      ['user.change_role', 'user', String(boss.userId), String(id), '203.0.113.5'],
      ['user.remove', 'user', String(boss.userId), String(id), '203.0.113.5'],
    ]);
    expect(rows.every((r) => Number(r.campaign_id) === merchant.campaignId)).to.equal(true);
    expect(JSON.parse(String(rows[1]?.details))).to.deep.include({ fields: ['role'] });
  });

  it('the last owner who can log in is neither demoted nor removed, and nothing is recorded', async () => {
    const boss = await owner('boss@shop.example');
    // An owner who has not set a password yet cannot log in: it does not count.
    const pending = await owner('pending@shop.example', false);
    expect(await as(boss, () => services.dashboard.changeRole(boss, boss.userId, 'viewer'))).to.equal('lastOwner');
    expect(await as(boss, () => services.dashboard.removeUser(boss, boss.userId))).to.equal('lastOwner');
    expect(await roleOf(boss.userId)).to.equal('owner');
    expect(await t.db('audit_log').whereIn('action', ['user.change_role', 'user.remove'])).to.have.length(0);
    // The pending owner may go; the last one still may not.
    expect(await as(boss, () => services.dashboard.changeRole(boss, pending.userId, 'admin'))).to.equal('done');
    expect(await as(boss, () => services.dashboard.removeUser(boss, boss.userId))).to.equal('lastOwner');
  });

  it('two owners demoting each other at once: one stays owner', async () => {
    const a = await owner('a@shop.example');
    const b = await owner('b@shop.example');
    const results = await Promise.allSettled([
      as(a, () => services.dashboard.changeRole(a, b.userId, 'admin')),
      as(b, () => services.dashboard.changeRole(b, a.userId, 'admin')),
    ]);
    const roles = [await roleOf(a.userId), await roleOf(b.userId)];
    expect(roles.filter((r) => r === 'owner')).to.have.length(1);
    const done = results.filter((r) => r.status === 'fulfilled' && r.value === 'done');
    expect(done).to.have.length(1);
  });
});

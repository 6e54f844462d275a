import { expect } from 'chai';
import { parseJson, runCli } from '../helpers/cli.js';
import { createMerchant, type Merchant } from '../helpers/daemon.js';
import { cleanTables, createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

/** `affiliated users …`: the merchant dashboard's users, as the operator manages them (docs/dashboard.md). */
describe(`users commands (${ENGINE})`, () => {
  let t: TestDatabase;
  let env: Record<string, string>;
  let merchant: Merchant;
  before(async () => {
    t = await createTestDatabase();
    env = { DATABASE_URL: t.url, PUBLIC_URL: 'https://affiliates.shop.example' };
  });
  beforeEach(async () => {
    await cleanTables(t.db);
    merchant = await createMerchant(t.db);
  });
  after(async () => t.drop());

  const create = (email: string, ...more: string[]) =>
    runCli(['users', 'create', '--campaign', merchant.publicId, '--email', email, ...more], { env });

  it('create prints a one-time set-up link on PUBLIC_URL; a bad e-mail, a taken one or a bad role is refused', async () => {
    const made = await create('Owner@Shop.example');
    expect(made.code, made.stderr).to.equal(0);
    expect(made.stderr).to.include('works once, for 24 hours');
    expect(made.stdout.trim()).to.match(
      new RegExp(
        `^https://affiliates\\.shop\\.example/dashboard/${merchant.publicId}/setup\\?token=[A-Za-z0-9_-]{43}$`,
      ),
    );
    // The database keeps the token's hash, never the token.
    const token = made.stdout.trim().split('token=')[1] ?? '';
    const rows = await t.db('dashboard_tokens').select('token_hash');
    expect(rows).to.have.length(1);
    expect(JSON.stringify(rows)).not.to.include(token);

    const taken = await create('owner@shop.example');
    expect(taken.code).to.equal(2);
    expect(taken.stderr).to.include('already has a user in this campaign');
    const bad = await create('not-an-address');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('--email must be a valid e-mail address');
    const role = await create('x@shop.example', '--role', 'king');
    expect(role.code).to.equal(2);
    expect(role.stderr).to.include('owner, admin, viewer');
    const nowhere = await runCli(['users', 'create', '--campaign', 'nowhere', '--email', 'a@b.example'], { env });
    expect(nowhere.code).to.equal(1);
    expect(nowhere.stderr).to.include('Campaign nowhere not found');
  });

  it('list, reset-2fa and remove: the second factor and sessions end with them', async () => {
    const viewer = parseJson(await create('viewer@shop.example', '--role', 'viewer', '--json'));
    expect(viewer).to.include({
      email: 'viewer@shop.example',
      role: 'viewer',
      passwordSet: false,
      secondFactor: false,
    });
    const owner = parseJson(await create('owner@shop.example', '--json'));
    // As if the owner had enrolled and logged in.
    await t
      .db('dashboard_users')
      .where({ id: owner.id })
      .update({ totp_secret: 'A'.repeat(32) });
    const now = new Date();
    await t.db('dashboard_sessions').insert({
      token_hash: 'f'.repeat(64),
      user_id: owner.id,
      factor_pending: false,
      created_at: now,
      last_seen_at: now,
      expires_at: new Date(now.getTime() + 60_000),
    });
    const listed = parseJson(await runCli(['users', 'list', '--campaign', merchant.publicId, '--json'], { env }));
    expect(listed.total).to.equal(2);
    expect(listed.users.map((u: { email: string; secondFactor: boolean }) => [u.email, u.secondFactor])).to.deep.equal([
      ['viewer@shop.example', false],
      ['owner@shop.example', true],
    ]);
    const table = await runCli(['users', 'list'], { env });
    expect(table.stdout).to.match(/owner@shop\.example\s+owner\s+not yet\s+on/);

    const reset = await runCli(['users', 'reset-2fa', String(owner.id)], { env });
    expect(reset.code, reset.stderr).to.equal(0);
    expect(reset.stdout).to.include('has no second factor now');
    const after = await t.db('dashboard_users').where({ id: owner.id }).first();
    expect(after?.totp_secret).to.equal(null);
    expect(await t.db('dashboard_sessions').where({ user_id: owner.id })).to.have.length(0);

    const removed = await runCli(['users', 'remove', String(viewer.id)], { env });
    expect(removed.code, removed.stderr).to.equal(0);
    expect(removed.stdout).to.include('viewer@shop.example');
    const again = await runCli(['users', 'remove', String(viewer.id)], { env });
    expect(again.code).to.equal(1);
    expect(again.stderr).to.include(`User ${viewer.id} not found`);

    // Each change is in the audit log as the operator, by user id, never with an e-mail.
    const rows = await t.db('audit_log').where('target_type', 'user').orderBy('id');
    expect(rows.map((r) => [r.action, r.actor_type, r.target_id])).to.deep.equal([
      ['user.create', 'operator', String(viewer.id)],
      ['user.create', 'operator', String(owner.id)],
      ['user.reset_2fa', 'operator', String(owner.id)],
      ['user.remove', 'operator', String(viewer.id)],
    ]);
    expect(JSON.stringify(rows)).not.to.include('shop.example');
  });
});

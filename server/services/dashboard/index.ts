import type { ApiKeyInfo } from '../../../shared/schemas/campaign.js';
import type { AffiliateList, ListAffiliatesQuery } from '../../../shared/schemas/affiliate.js';
import type {
  BulkUpdateConversionsResponse,
  ConversionList,
  ListConversionsQuery,
  SettableConversionStatus,
} from '../../../shared/schemas/conversion.js';
import type {
  BulkCreatePayoutsResponse,
  ListPayoutsQuery,
  Payout,
  PayoutList,
} from '../../../shared/schemas/payout.js';
import type { PayoutRun } from '../../../shared/schemas/payoutRun.js';
import { NotFoundError } from '../../errors.js';
import { findCampaign } from '../../repositories/campaigns.js';
import {
  type DashboardUser,
  type ListedDashboardUser,
  unusedRecoveryCodes,
} from '../../repositories/dashboardUsers.js';
import { databaseThrottleStore, redisThrottleStore, type RedisClient } from '../../repositories/portalThrottle.js';
import type { ApiKeyService } from '../apiKeys.js';
import type { ServiceDeps } from '../deps.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { PasswordHasher } from '../passwordHasher.js';
import type { PayoutRunService, StoredPayoutRun } from '../payouts/run.js';
import { portalThrottle } from '../portal/throttle.js';
import type { ReportService } from '../reports.js';
import type { Site } from '../site.js';
import type { SecretBox } from '../webhooks/secretBox.js';
import { affiliateChanges, type AffiliateChangesDeps, type DashboardAffiliateChanges } from './affiliateChanges.js';
import { campaignPages, type CampaignPagesDeps, type DashboardCampaignPages } from './campaignPages.js';
import { type DashboardHookChanges, hookChanges } from './hookChanges.js';
import * as login from './login.js';
import * as passkeys from './passkeys.js';
import { overview, type Overview } from './overview.js';
import { requireRole } from './roles.js';
import { dashboardSessions } from './sessions.js';
import { newTotpSecret, totpUri } from './totp.js';
import type { Asker, DashboardActor, DashboardCampaign, DashboardLogIn, SetupLink } from './types.js';
import * as users from './users.js';

export type { Asker, DashboardActor, DashboardCampaign, DashboardRole, SetupLink } from './types.js';
export { DASHBOARD_ROLES } from './types.js';
export type { Overview } from './overview.js';
export type { AffiliateDetail, IntegrationsView } from './campaignPages.js';
export type { DashboardPasskey, PasskeyOptions, RegisterResult } from './passkeys.js';
export { MAX_PASSKEY_NAME } from './passkeys.js';
export type { DashboardUser, ListedDashboardUser } from '../../repositories/dashboardUsers.js';
export type { NewUserResult } from './users.js';
export { may, needsSecondFactor } from './roles.js';

/**
 * The merchant dashboard's rules (docs/dashboard.md). Its pages (server/dashboard/) call only
 * these; what a page changes goes through the services the API uses, after the actor's role
 * is checked here (403 otherwise).
 */
export interface DashboardService extends DashboardCampaignPages, DashboardHookChanges, DashboardAffiliateChanges {
  readonly mailEnabled: boolean;
  campaign(publicId: string): Promise<DashboardCampaign>;
  session(campaign: DashboardCampaign, secret: string | undefined): Promise<DashboardActor | undefined>;
  logIn(
    campaign: DashboardCampaign,
    fields: { email?: string; password?: string },
    asker: Asker,
  ): Promise<DashboardLogIn>;
  logOut(secret: string): Promise<void>;
  setupLink(campaign: DashboardCampaign, token: string | undefined): Promise<SetupLink>;
  completeSetup(
    campaign: DashboardCampaign,
    fields: { token?: string; password?: string },
    asker: Asker,
  ): Promise<login.SetupResult>;
  /** A fresh secret to enrol and its `otpauth://` address (nothing is stored until a code confirms it). */
  totpProposal(campaign: DashboardCampaign, actor: DashboardActor): { secret: string; uri: string };
  enrolTotp(
    actor: DashboardActor,
    fields: { secret?: string; code?: string },
    session: string,
  ): Promise<login.EnrolResult>;
  checkTotp(actor: DashboardActor, code: string, session: string): Promise<login.FactorResult>;
  checkRecoveryCode(actor: DashboardActor, code: string, session: string): Promise<login.FactorResult>;

  /** docs/dashboard.md#passkeys: the user's own passkeys (owners and admins). */
  passkeys(actor: DashboardActor): Promise<passkeys.DashboardPasskey[]>;
  /** Options for `navigator.credentials.create`, the challenge kept on the session; `pageOrigin` is where the page was opened. */
  passkeyRegistrationOptions(
    campaign: DashboardCampaign,
    actor: DashboardActor,
    session: string,
    pageOrigin: string,
  ): Promise<passkeys.PasskeyOptions>;
  /** `names`: the name typed, and what to call the passkey when none was. */
  addPasskey(
    actor: DashboardActor,
    session: string,
    response: string | undefined,
    names: { given: string | undefined; fallback: string },
  ): Promise<passkeys.RegisterResult>;
  /** The recovery codes a first passkey made for this session: once. */
  heldRecoveryCodes(session: string): Promise<string[] | undefined>;
  /** How many unused recovery codes the user has: the second-factor page offers one when there are. */
  recoveryCodesLeft(actor: DashboardActor): Promise<number>;
  /** Options for `navigator.credentials.get`, for a session that owes its second factor. */
  passkeyLogInOptions(actor: DashboardActor, session: string, pageOrigin: string): Promise<passkeys.PasskeyOptions>;
  checkPasskey(actor: DashboardActor, session: string, response: string | undefined): Promise<login.FactorResult>;
  /** false: the user has no such passkey. */
  removePasskey(actor: DashboardActor, id: number): Promise<boolean>;

  overview(actor: DashboardActor): Promise<Overview>;
  affiliates(actor: DashboardActor, query: ListAffiliatesQuery): Promise<AffiliateList>;
  approveAffiliate(actor: DashboardActor, id: number): Promise<void>;
  conversions(actor: DashboardActor, query: ListConversionsQuery): Promise<ConversionList>;
  moveConversions(
    actor: DashboardActor,
    ids: readonly number[],
    to: SettableConversionStatus,
  ): Promise<BulkUpdateConversionsResponse>;
  payouts(actor: DashboardActor, query: ListPayoutsQuery): Promise<PayoutList>;
  /** Every payout of a status, for the CSV export (pages of 100, in the API's order). */
  allPayouts(actor: DashboardActor, status: ListPayoutsQuery['status']): Promise<Payout[]>;
  createPayouts(actor: DashboardActor): Promise<BulkCreatePayoutsResponse>;
  markPayoutPaid(actor: DashboardActor, id: number): Promise<Payout>;
  /** A payout run (docs/payouts.md#payout-runs), started by this user. */
  runPayouts(actor: DashboardActor, dryRun: boolean): Promise<PayoutRun>;
  /** Runs waiting for a second person's approval. */
  payoutRunsAwaiting(actor: DashboardActor): Promise<StoredPayoutRun[]>;
  /** The second person's approval: an owner or admin who did not start the run; once. */
  approvePayoutRun(actor: DashboardActor, id: number): Promise<{ run: StoredPayoutRun; sent: number }>;

  keys(actor: DashboardActor): Promise<ApiKeyInfo[]>;
  createKey(actor: DashboardActor, name: string): Promise<ApiKeyInfo & { key: string }>;
  revokeKey(actor: DashboardActor, id: number): Promise<ApiKeyInfo>;

  users(actor: DashboardActor): Promise<ListedDashboardUser[]>;
  invite(
    actor: DashboardActor,
    fields: { email?: string; role?: string },
    locale: string,
  ): Promise<users.NewUserResult>;
  /** `lastOwner`: refused, the campaign would have no owner left who can log in. */
  changeRole(actor: DashboardActor, id: number, role: string): Promise<'done' | typeof users.LAST_OWNER>;
  removeUser(actor: DashboardActor, id: number): Promise<'done' | typeof users.LAST_OWNER>;

  /** The operator's `affiliated users …` commands. */
  operator: {
    create(input: { campaign: string; email: string; role: string }): Promise<users.NewUserResult>;
    list(campaign?: string): Promise<ListedDashboardUser[]>;
    remove(id: number): Promise<DashboardUser>;
    resetTwoFactor(id: number): Promise<{ user: DashboardUser; passkeys: number }>;
  };
}

export interface DashboardServiceDeps extends ServiceDeps, CampaignPagesDeps, AffiliateChangesDeps {
  payoutRuns: PayoutRunService;
  reports: ReportService;
  apiKeys: ApiKeyService;
  mail: MailOutbox;
  hasher: PasswordHasher;
  site: Site;
  box: SecretBox;
  redis?: RedisClient;
}

export function dashboardService(deps: DashboardServiceDeps): DashboardService {
  const { db, now } = deps;
  const store = deps.redis ? redisThrottleStore(deps.redis) : databaseThrottleStore(db);
  const throttle = portalThrottle(store, deps.config.portal.postsPerIp);
  const sessions = dashboardSessions(db);
  const loginDeps: login.LoginDeps = { db, now, hasher: deps.hasher, sessions, throttle, box: deps.box };
  const passkeyDeps: passkeys.PasskeyDeps = { ...loginDeps, site: deps.site };
  const userDeps: users.UserDeps = { db, now, site: deps.site, mail: deps.mail, sessions };
  const notFound = () => new NotFoundError('Not Found');

  return {
    ...campaignPages(deps),
    ...hookChanges(deps),
    ...affiliateChanges(deps),
    mailEnabled: deps.mail.enabled,

    async campaign(publicId) {
      const found = /^[A-Za-z0-9_-]{3,64}$/.test(publicId) ? await findCampaign(db, publicId) : undefined;
      if (!found || found.campaign.publicId !== publicId) throw notFound();
      const { campaign } = found;
      return { id: campaign.id, publicId: campaign.publicId, name: campaign.name, currency: campaign.currency };
    },

    async session(campaign, secret) {
      if (secret === undefined) return undefined;
      const found = await sessions.find(campaign.id, secret, now());
      if (!found) return undefined;
      return {
        userId: found.userId,
        campaignId: found.campaignId,
        email: found.email,
        role: found.role,
        totpEnrolled: found.totpEnrolled,
        factorPending: found.factorPending,
      };
    },

    logIn: (campaign, fields, asker) => login.logIn(loginDeps, campaign, fields, asker),
    logOut: (secret) => sessions.close(secret),
    setupLink: (campaign, token) => login.setupLink(loginDeps, campaign, token),
    completeSetup: (campaign, fields, asker) => login.completeSetup(loginDeps, campaign, fields, asker),
    totpProposal(campaign, actor) {
      const secret = newTotpSecret();
      return { secret, uri: totpUri(secret, actor.email, `${campaign.name} (affiliated)`) };
    },
    enrolTotp: (actor, fields, session) => login.enrolTotp(loginDeps, actor, fields, session),
    checkTotp: (actor, code, session) => login.checkTotp(loginDeps, actor, code, session),
    checkRecoveryCode: (actor, code, session) => login.checkRecoveryCode(loginDeps, actor, code, session),

    passkeys: (actor) => passkeys.ownPasskeys(passkeyDeps, actor),
    passkeyRegistrationOptions: (campaign, actor, session, pageOrigin) =>
      passkeys.registrationOptions(passkeyDeps, campaign, actor, session, pageOrigin),
    addPasskey: (actor, session, response, names) => passkeys.register(passkeyDeps, actor, session, response, names),
    recoveryCodesLeft: (actor) => unusedRecoveryCodes(db, actor.userId),
    heldRecoveryCodes: (session) => passkeys.heldRecoveryCodes(passkeyDeps, session),
    passkeyLogInOptions: (actor, session, pageOrigin) =>
      passkeys.authenticationOptions(passkeyDeps, actor, session, pageOrigin),
    checkPasskey: (actor, session, response) => passkeys.authenticate(passkeyDeps, actor, session, response),
    removePasskey: (actor, id) => passkeys.removePasskey(passkeyDeps, actor, id),

    async overview(actor) {
      requireRole(actor, 'read');
      return overview(deps.reports, actor.campaignId, now());
    },
    async affiliates(actor, query) {
      requireRole(actor, 'read');
      return deps.affiliates.list(actor.campaignId, query);
    },
    async approveAffiliate(actor, id) {
      requireRole(actor, 'change');
      await deps.affiliates.approve(actor.campaignId, id);
    },
    async conversions(actor, query) {
      requireRole(actor, 'read');
      return deps.conversions.list(actor.campaignId, query);
    },
    async moveConversions(actor, ids, to) {
      requireRole(actor, 'change');
      return deps.conversions.bulkUpdate(actor.campaignId, { status: to, ids: [...ids] });
    },
    async payouts(actor, query) {
      requireRole(actor, 'read');
      return deps.payouts.list(actor.campaignId, query);
    },
    async allPayouts(actor, status) {
      requireRole(actor, 'read');
      const all: Payout[] = [];
      for (let page = 1; ; page++) {
        const list = await deps.payouts.list(actor.campaignId, { status, page, limit: 100 });
        all.push(...list.payouts);
        if (list.payouts.length < 100 || all.length >= list.total) return all;
      }
    },
    async createPayouts(actor) {
      requireRole(actor, 'change');
      return deps.payouts.createMany(actor.campaignId);
    },
    async markPayoutPaid(actor, id) {
      requireRole(actor, 'change');
      return deps.payouts.update(actor.campaignId, id, 'paid');
    },
    async runPayouts(actor, dryRun) {
      requireRole(actor, 'change');
      return deps.payoutRuns.start(actor.campaignId, { dryRun });
    },
    async payoutRunsAwaiting(actor) {
      requireRole(actor, 'read');
      return deps.payoutRuns.awaitingApproval(actor.campaignId);
    },
    async approvePayoutRun(actor, id) {
      requireRole(actor, 'change');
      return deps.payoutRuns.approve(actor.campaignId, id, actor.userId);
    },

    async keys(actor) {
      requireRole(actor, 'keys');
      return deps.apiKeys.list(actor.campaignId);
    },
    async createKey(actor, name) {
      requireRole(actor, 'keys');
      return deps.apiKeys.create({ campaign: actor.campaignId, name });
    },
    async revokeKey(actor, id) {
      requireRole(actor, 'keys');
      return deps.apiKeys.revoke(id, actor.campaignId);
    },

    async users(actor) {
      requireRole(actor, 'users');
      return users.listUsers(db, actor.campaignId);
    },
    async invite(actor, fields, locale) {
      requireRole(actor, 'users');
      return users.createUser(userDeps, {
        campaign: actor.campaignId,
        email: fields.email ?? '',
        role: fields.role ?? '',
        invite: 'mail',
        locale,
      });
    },
    async changeRole(actor, id, role) {
      requireRole(actor, 'users');
      const changed = await users.changeRole(userDeps, actor.campaignId, id, role);
      if (changed === users.LAST_OWNER) return changed;
      if (!changed) {
        // An unknown user, one of another campaign, or the same role: nothing changes.
        const found = (await users.listUsers(db, actor.campaignId)).some((u) => u.id === id);
        if (!found) throw notFound();
      }
      return 'done';
    },
    async removeUser(actor, id) {
      requireRole(actor, 'users');
      const removed = await users.removeUser(userDeps, id, actor.campaignId);
      return removed === users.LAST_OWNER ? removed : 'done';
    },

    operator: {
      create: (input) => users.createUser(userDeps, { ...input, invite: 'print' }),
      list: (campaign) => users.listUsers(db, campaign),
      async remove(id) {
        const removed = await users.removeUser(userDeps, id);
        // Without a campaign to keep an owner in (the operator's), a removal is never refused.
        if (removed === users.LAST_OWNER) throw new NotFoundError(`User ${id} not found`);
        return removed;
      },
      resetTwoFactor: (id) => users.resetTwoFactor(userDeps, id),
    },
  };
}

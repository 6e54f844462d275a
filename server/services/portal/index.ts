import { findCampaign } from '../../repositories/campaigns.js';
import { setNotifyPayouts } from '../../repositories/portalAccounts.js';
import { databaseThrottleStore, redisThrottleStore, type RedisClient } from '../../repositories/portalThrottle.js';
import { NotFoundError } from '../../errors.js';
import type { AffiliateService } from '../affiliates.js';
import type { AnalyticsService } from '../analytics/index.js';
import type { ServiceDeps } from '../deps.js';
import type { MailOutbox } from '../mail/outbox.js';
import type { PasswordHasher } from '../passwordHasher.js';
import type { Site } from '../site.js';
import { type AccountDeps, logIn, referrerOf, signUp } from './accounts.js';
import { type Dashboard, dashboard, payout } from './dashboard.js';
import { type FieldProblems, type FormFields, passwordProblem, payoutOf, profileOf } from './forms.js';
import { invite, type InviteDeps } from './invite.js';
import { requestReset, type ResetDeps, resetLink, resetPassword } from './reset.js';
import { portalSessions } from './sessions.js';
import { portalThrottle } from './throttle.js';
import type { Asker, FormResult, LogInResult, PortalCampaign, PortalUser, ResetLink, SignUpResult } from './types.js';

export type { Asker, FormResult, LogInResult, PortalCampaign, PortalUser, ResetLink, SignUpResult } from './types.js';
export type { ChartDay, Dashboard } from './dashboard.js';
export type { FieldProblem, FieldProblems, FormFields } from './forms.js';

/** The affiliate portal's rules (docs/portal.md); its pages (server/portal/) only call these. */
export interface PortalService {
  /** Whether the portal can send mail (password reset needs it). */
  readonly mailEnabled: boolean;
  /** The campaign of a portal URL: 404 when there is none or its portal is off. */
  campaign(publicId: string): Promise<PortalCampaign>;
  /** The affiliate of a session cookie, if it is a live session of this campaign. */
  session(campaign: PortalCampaign, secret: string | undefined): Promise<PortalUser | undefined>;
  referrer(campaign: PortalCampaign, code: string | undefined): Promise<string | undefined>;
  signUp(campaign: PortalCampaign, fields: FormFields, asker: Asker): Promise<SignUpResult>;
  logIn(campaign: PortalCampaign, fields: FormFields, asker: Asker): Promise<LogInResult>;
  logOut(secret: string): Promise<void>;
  dashboard(campaign: PortalCampaign, user: PortalUser, page: number): Promise<Dashboard>;
  /** A payout and one page (from 1) of the conversions it covered. */
  payout(user: PortalUser, id: number, page?: number): ReturnType<typeof payout>;
  updateProfile(campaign: PortalCampaign, user: PortalUser, fields: FormFields): Promise<FormResult>;
  updatePayoutDetails(campaign: PortalCampaign, user: PortalUser, fields: FormFields): Promise<FormResult>;
  setNotifyPayouts(user: PortalUser, notify: boolean): Promise<void>;
  /** A new password ends every session; the browser that changed it gets a new one (`secret`). */
  changePassword(
    campaign: PortalCampaign,
    user: PortalUser,
    fields: FormFields,
    asker: Asker,
  ): Promise<{ state: 'saved'; secret: string } | Extract<FormResult, { state: 'invalid' }>>;
  requestReset(campaign: PortalCampaign, fields: FormFields, asker: Asker): ReturnType<typeof requestReset>;
  resetLink(campaign: PortalCampaign, token: string | undefined): Promise<ResetLink>;
  resetPassword(campaign: PortalCampaign, fields: FormFields, asker: Asker): ReturnType<typeof resetPassword>;
  /** `POST /v1/affiliates/{id}/invite`: a set-your-password link, mailed or answered. */
  invite(campaignId: number, id: number): ReturnType<typeof invite>;
}

export interface PortalServiceDeps extends ServiceDeps {
  affiliates: AffiliateService;
  analytics: AnalyticsService;
  mail: MailOutbox;
  hasher: PasswordHasher;
  redis?: RedisClient;
  wakeMail: () => void;
  site: Site;
}

export function portalService(deps: PortalServiceDeps): PortalService {
  const { db, now } = deps;
  const store = deps.redis ? redisThrottleStore(deps.redis) : databaseThrottleStore(db);
  const throttle = portalThrottle(store, deps.config.portal.postsPerIp);
  const sessions = portalSessions(db);
  const accounts: AccountDeps = { db, now, affiliates: deps.affiliates, hasher: deps.hasher, sessions, throttle };
  const resets: ResetDeps = { db, now, mail: deps.mail, hasher: deps.hasher, throttle, wake: deps.wakeMail };
  const invites: InviteDeps = { db, now, mail: deps.mail, site: deps.site, wake: deps.wakeMail };

  return {
    mailEnabled: deps.mail.enabled,

    async campaign(publicId) {
      const found = /^[A-Za-z0-9_-]{3,64}$/.test(publicId) ? await findCampaign(db, publicId) : undefined;
      // A campaign without its portal is as absent as one that does not exist.
      if (!found?.campaign.portal.enabled || found.campaign.publicId !== publicId) {
        throw new NotFoundError('Not Found');
      }
      const { campaign } = found;
      return {
        id: campaign.id,
        publicId: campaign.publicId,
        name: campaign.name,
        signupOpen: campaign.portal.signup === 'open',
        approveAffiliates: campaign.portal.approveAffiliates,
        siteUrl: campaign.portal.siteUrl,
        currency: campaign.currency,
      };
    },

    session: (campaign, secret) =>
      secret === undefined ? Promise.resolve(undefined) : sessions.find(campaign.id, secret, now()),
    referrer: async (campaign, code) => (await referrerOf(db, campaign, code))?.code,
    signUp: (campaign, fields, asker) => signUp(accounts, campaign, fields, asker),
    logIn: (campaign, fields, asker) => logIn(accounts, campaign, fields, asker),
    logOut: (secret) => sessions.close(secret),
    dashboard: (campaign, user, page) => dashboard({ db, analytics: deps.analytics }, now(), campaign, user, page),
    payout: (user, id, page) => payout(db, user, id, page),

    async updateProfile(campaign, user, fields) {
      const { name, phone, problems } = profileOf(fields, false);
      if (Object.keys(problems).length > 0) return { state: 'invalid', problems };
      await deps.affiliates.update(campaign.id, user.affiliateId, { name, phone });
      return { state: 'saved' };
    },

    async updatePayoutDetails(campaign, user, fields) {
      const { check, field } = payoutOf(fields);
      if (!check.ok) return { state: 'invalid', problems: { [field]: `payout.${check.problem}` } };
      await deps.affiliates.setPayoutDetails(campaign.id, user.affiliateId, check.details, check.identity);
      return { state: 'saved' };
    },

    setNotifyPayouts: (user, notify) => setNotifyPayouts(db, user.affiliateId, notify, now()),

    async changePassword(campaign, user, fields, asker) {
      const problem = passwordProblem(fields.newPassword);
      if (problem || !fields.newPassword) {
        const problems: FieldProblems = { newPassword: problem ?? 'required' };
        return { state: 'invalid', problems };
      }
      // The current password is guessed like a log-in's: the same five places of the same e-mail.
      await throttle.ipPost(asker.ip, now());
      const ticket = await throttle.loginAttempt(campaign.id, user.email.toLowerCase(), now());
      if (!fields.currentPassword || !(await deps.hasher.verify(fields.currentPassword, user.passwordHash))) {
        await throttle.failed(ticket, now());
        const problems: FieldProblems = { currentPassword: 'currentPassword' };
        return { state: 'invalid', problems };
      }
      await throttle.succeeded(ticket);
      // The update ends every session of the affiliate, this one too; this browser gets a new one.
      await deps.affiliates.update(campaign.id, user.affiliateId, { password: fields.newPassword });
      return { state: 'saved', secret: await sessions.open(db, campaign.id, user.affiliateId, now()) };
    },

    requestReset: (campaign, fields, asker) => requestReset(resets, campaign, fields, asker),
    resetLink: (campaign, token) => resetLink(resets, campaign, token),
    resetPassword: (campaign, fields, asker) => resetPassword(resets, campaign, fields, asker),
    invite: (campaignId, id) => invite(invites, campaignId, id),
  };
}

import type { Config } from '../config.js';
import type { Db } from '../db/knex.js';
import { type JobRuntime, jobRuntime } from '../jobs/runtime.js';
import type { Logger } from '../logger.js';
import { type AffiliateService, affiliateService } from './affiliates.js';
import { type AnalyticsService, analyticsService } from './analytics/index.js';
import { type ApiKeyService, apiKeyService } from './apiKeys.js';
import { type AuditService, auditService } from './audit.js';
import { type ApiKeyAuthenticator, apiKeyAuthenticator } from './auth.js';
import { autoApproveJob } from './autoApprove.js';
import { billingLedger } from './billing/ledger.js';
import { type IntegrationService, integrationService } from './billing/integrations.js';
import { type BillingReceiver, billingReceiver } from './billing/receive.js';
import { type CampaignService, campaignService } from './campaigns.js';
import { type ClickService, clickService } from './clicks/index.js';
import { type CouponService, couponService } from './coupons.js';
import { type ConversionService, conversionService } from './conversions.js';
import type { CountryOf } from '../geoip.js';
import type { Observer, ServiceDeps, Worker } from './deps.js';
import { type EventService, eventService, monthlyUsage, saleRecorder } from './events/index.js';
import { type GroupService, groupService } from './groups.js';
import { type HealthService, healthService } from './health.js';
import { type PayoutService, payoutService } from './payouts.js';
import { type PayoutCallbacks, payoutCallbacks } from './payouts/callbacks.js';
import { outcomeWriter } from './payouts/outcome.js';
import { createPayoutProviders } from './payouts/providers/index.js';
import { type PayoutRailService, payoutRailService } from './payouts/rails.js';
import { type PayoutSender, payoutSender } from './payouts/send.js';
import { payoutSendJob } from './payouts/sendJob.js';
import { type PayoutRunService, payoutRunService } from './payouts/run.js';
import { payoutScheduleJob } from './payouts/schedule.js';
import { payoutResumeJob } from './payouts/resume.js';
import { settlementEffects } from './payouts/settlement.js';
import { type PlanService, planService } from './plans.js';
import { type ReferenceService, referenceService } from './reference.js';
import { type ReportService, reportService } from './reports.js';
import { type RefundService, refundService } from './refunds.js';
import { type SdkService, sdkService } from './sdk.js';
import { type WebhookService, webhookService } from './webhooks/endpoints.js';
import { webhookOutbox } from './webhooks/outbox.js';
import { type MailService, mailService } from './mail/service.js';
import { mailOutbox } from './mail/outbox.js';
import { mailDeliveryJob } from './mail/worker.js';
import { passwordHasher } from './passwordHasher.js';
import { type DashboardService, dashboardService } from './dashboard/index.js';
import { type PortalService, portalService } from './portal/index.js';
import { portalHousekeeping } from './portal/housekeeping.js';
import { eventsRetention } from './retention.js';
import { type Site, site as publicSite } from './site.js';
import type { RedisClient } from '../repositories/portalThrottle.js';
import { lazySecretBox } from './webhooks/secretBox.js';
import { webhookDeliveryJob } from './webhooks/worker.js';

export type { ServiceDeps, Worker } from './deps.js';

/** Every service of the daemon, built once. Routes and the CLI's operator commands get this. */
export interface Services {
  authenticator: ApiKeyAuthenticator;
  affiliates: AffiliateService;
  groups: GroupService;
  events: EventService;
  campaigns: CampaignService;
  apiKeys: ApiKeyService;
  plans: PlanService;
  health: HealthService;
  reference: ReferenceService;
  webhooks: WebhookService;
  reports: ReportService;
  /** `GET /v1/analytics` and its funnel, from the rollups (docs/analytics.md). */
  analytics: AnalyticsService;
  sdk: SdkService;
  /** Referral links and their clicks (docs/analytics.md). */
  clicks: ClickService;
  conversions: ConversionService;
  refunds: RefundService;
  payouts: PayoutService;
  /** Payout rails (docs/payouts.md): credentials, sends, and the providers' callbacks. */
  payoutRails: PayoutRailService;
  payoutSender: PayoutSender;
  /** Payout runs and their approvals (docs/payouts.md#payout-runs). */
  payoutRuns: PayoutRunService;
  payoutCallbacks: PayoutCallbacks;
  /** Billing providers' webhooks (docs/integrations.md). */
  billing: BillingReceiver;
  integrations: IntegrationService;
  coupons: CouponService;
  portal: PortalService;
  /** The merchant dashboard's users, sessions and role checks (docs/dashboard.md). */
  dashboard: DashboardService;
  mail: MailService;
  /** The audit log: its list, and `actingAs` for callers that know who acts (docs/architecture.md). */
  audit: AuditService;
  /** The daemon's address for links in mails; the daemon says where it listens. */
  site: Site;
  /** The job runtime every queue and periodic job runs on; `jobs.figures()` is what metrics read. */
  jobs: JobRuntime;
  /** Background work the daemon runs while it serves (none for operator commands): the runtime's runners and the intake writer. */
  workers: Worker[];
}

/** The composition root: the one place services are constructed and wired to each other. */
export function createServices(options: {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  now?: () => Date;
  redis?: RedisClient;
  observer?: Observer;
  countryOf?: CountryOf;
}): Services {
  const deps: ServiceDeps = { ...options, now: options.now ?? (() => new Date()) };
  // One bound on bcrypt for the whole daemon: the API's affiliates and the portal's log-ins share it.
  const hasher = passwordHasher(deps.config.bcryptRounds, deps.config.bcryptConcurrency);
  const site = publicSite(deps.config.publicUrl);
  // Every background job is registered here, on the one runtime (docs/architecture.md, "Background work").
  const jobs = jobRuntime(deps);
  const mailQueue = jobs.queue(mailDeliveryJob({ ...deps, site }));
  // Every mail is recorded through this one outbox, inside the transaction of what it reports.
  const mail = mailOutbox(deps);
  const box = lazySecretBox(deps.config, deps.db);
  const webhookQueue = jobs.queue(webhookDeliveryJob({ ...deps, box }));
  // Every change a service makes is reported through this one outbox, inside its transaction.
  const outbox = webhookOutbox(deps);
  const conversions = conversionService(deps, outbox);
  // Intake's one cache of the months whose counters exist: the event endpoints' and billing's.
  const usage = monthlyUsage(deps.db);
  const events = eventService(deps, outbox, usage);
  const affiliates = affiliateService(deps, outbox, mail, hasher);
  const payouts = payoutService(deps, outbox, mail);
  const reports = reportService(deps);
  const apiKeys = apiKeyService(deps);
  const clicks = clickService(deps);
  // Payouts that pay: the intent is committed by the sender, the provider called by the send queue.
  const writer = outcomeWriter(settlementEffects(outbox, mail));
  const rails = createPayoutProviders(deps.config.payouts);
  const providers = deps.observer ? deps.observer.payoutProviders(rails) : rails;
  const payoutQueue = jobs.queue(payoutSendJob({ ...deps, box, providers, writer }));
  const sender = payoutSender(deps, outbox, payoutQueue.wake);
  const payoutRuns = payoutRunService(deps, payouts, sender);
  const callbacks = payoutCallbacks({ ...deps, box, writer, wake: payoutQueue.wake });
  // The clicks' share of the rollup is folded in off the redirect's path, and before each read of it.
  const analytics = analyticsService(deps, clicks.fold);
  const audit = auditService(deps);
  const groups = groupService(deps, outbox);
  const campaigns = campaignService(deps, usage);
  const webhooks = webhookService({ ...deps, box, wake: webhookQueue.wake }, outbox);
  const integrations = integrationService(deps, box);
  const coupons = couponService(deps);
  const payoutRails = payoutRailService(deps, box);
  jobs.periodic(autoApproveJob(deps, conversions));
  jobs.periodic(payoutScheduleJob(deps, payoutRuns));
  jobs.periodic(payoutResumeJob(deps, payoutRuns));
  jobs.periodic(portalHousekeeping(deps));
  jobs.periodic(eventsRetention(deps));
  jobs.periodic(clicks.fold.job);
  return {
    authenticator: apiKeyAuthenticator(deps),
    affiliates,
    groups,
    events,
    campaigns,
    apiKeys,
    plans: planService(deps),
    health: healthService(deps),
    reference: referenceService(),
    webhooks,
    reports,
    analytics,
    sdk: sdkService(deps),
    clicks,
    conversions,
    refunds: refundService(deps, outbox),
    billing: billingReceiver(deps, box, billingLedger(outbox, saleRecorder(outbox, deps.config.rollupUpkeep)), usage),
    integrations,
    coupons,
    payouts,
    payoutRails,
    payoutSender: sender,
    payoutRuns,
    payoutCallbacks: callbacks,
    dashboard: dashboardService({
      ...deps,
      affiliates,
      conversions,
      payouts,
      payoutRuns,
      reports,
      apiKeys,
      mail,
      hasher,
      site,
      box,
      audit,
      groups,
      campaigns,
      webhooks,
      integrations,
      coupons,
      payoutRails,
      payoutSender: sender,
    }),
    portal: portalService({ ...deps, affiliates, analytics, mail, hasher, wakeMail: mailQueue.wake, site }),
    mail: mailService(deps),
    audit,
    site,
    // The intake writer's requests are answered before the pool they write through closes.
    jobs,
    workers: [...jobs.workers, events.worker, clicks.worker, callbacks.worker],
  };
}

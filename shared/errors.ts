/**
 * The spec's error body (spec §7) and every user-facing message, in one place so that
 * the server, the client and the tests quote the same text.
 */

export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error: string;
}

/** HTTP status → the `error` field of the body. */
export const STATUS_NAMES: Readonly<Record<number, string>> = Object.freeze({
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
});

export function statusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error');
}

export const MESSAGES = Object.freeze({
  apiKeyRequired: 'API Key is required',
  apiKeyInvalid: 'Invalid or inactive API Key',
  apiKeyRevoked: 'API Key is revoked or inactive',
  affiliateNotFound: 'Affiliate not found',
  notPending: (id: number, status: string) =>
    `Affiliate ${id} is ${status}, not pending: only a pending affiliate can be approved (PATCH its status to change it)`,
  conversionNotFound: 'Conversion not found',
  payoutNotFound: 'Payout not found',
  webhookNotFound: 'Webhook not found',
  groupNotFound: 'Group not found',
  groupNameTaken: 'Group name is not available',
  groupNotInCampaign: 'groupId must be the id of a group of this campaign',
  parentNotInCampaign: 'parentAffiliateId must be the id of another affiliate of this campaign',
  parentIsSelf: 'parentAffiliateId must not be the affiliate itself',
  parentChainTooDeep: (limit: number) =>
    `parentAffiliateId starts a chain of more than ${limit} parents: choose a parent nearer the top of the chain`,
  parentCycle: (id: number, parentId: number) =>
    `parentAffiliateId ${parentId} would make a cycle: affiliate ${parentId} is below affiliate ${id} already`,
  parentChainBusy: 'The affiliates above the new parent kept changing during this update: send it again',
  percentOver100: 'commissionValue must not be greater than 100 for a percent commission',
  secondTierConversion: (id: number, sourceId: number) =>
    `Conversion ${id} is the second-tier commission of conversion ${sourceId}: it follows that sale, so approve, reject or refund conversion ${sourceId} instead`,
  refundOverOrder: (orderValue: string) => `amount must not be greater than the order's value (${orderValue})`,
  refundOverRemaining: (amount: string, left: string, orderId: string) =>
    `Refund of ${amount} BRL is more than the ${left} BRL of order ${orderId} not refunded yet`,
  deliveryNotFound: 'Delivery not found',
  webhookDisabled: 'Webhook is disabled: enable it first (PATCH status enabled)',
  webhookPrivateUrl: (address: string) =>
    `url resolves to ${address}, a private, loopback or link-local address: use a public address ` +
    '(or set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the daemon)',
  webhookUrlCharacters:
    'must be an http:// or https:// URL written with URL characters only: percent-encode spaces and anything else (a space is %20)',
  webhookUrlPortZero: 'must not use port 0: give the port your receiver listens on, or none for 80/443',
  webhookUrlCredentials:
    'must not hold a user name or password: they would be stored and listed, and never sent (verify the signature instead)',
  webhookEndpointLimit: (max: number) =>
    `Webhook endpoint limit reached: a campaign may have at most ${max} endpoints (WEBHOOK_MAX_ENDPOINTS on the daemon): delete one first`,
  webhookRotationLimit: (max: number, retryAfter: string) =>
    `Webhook secret cannot be rotated again yet: ${max} earlier secrets still sign, each for 24 hours after it was replaced (WEBHOOK_MAX_RETIRED_SECRETS on the daemon); retry after ${retryAfter}`,
  bodyNotAccepted: 'This request takes no body: send it without one (no Content-Length above 0, no Transfer-Encoding)',
  notFound: 'Not Found',
  invalidSignature: (provider: 'stripe' | 'paddle') =>
    provider === 'stripe' ? 'Invalid Stripe signature' : 'Invalid Paddle signature',
  notAProviderEvent: (provider: 'stripe' | 'paddle') =>
    provider === 'stripe'
      ? 'Not a Stripe event: the body must be a JSON object with an "id" and a "type"'
      : 'Not a Paddle notification: the body must be a JSON object with an "event_id" and an "event_type"',
  integrationNotFound: 'Integration not found: set one with PUT /v1/integrations/{provider}',
  couponNotFound: 'Coupon not found',
  inviteNeedsPortal: (publicId: string) =>
    `The campaign's affiliate portal is off, and an invitation's link points there: turn it on first (affiliated campaigns update ${publicId} --portal on)`,
  inviteInactive: (id: number) =>
    `Affiliate ${id} is inactive and cannot log in: make it active first (PATCH its status), then invite it`,
  failedMailNotFound: (id: number) =>
    `Mail ${id} is not a failed mail: only failed mails are retried (affiliated mail list --status failed lists them)`,
  couponTaken: 'Coupon code is not available',
  emailTaken: 'Email is not available',
  referralTaken: 'Referral ID is not available',
  numericId: 'Validation failed (numeric string is expected)',
  tooManyRequests: 'ThrottlerException: Too Many Requests',
  internal: 'Internal server error',
  malformedJson: 'Request body is not valid JSON',
  unsupportedMediaType: 'Content-Type must be application/json',
  sdkConversionForbidden:
    'Conversions cannot be sent from the browser: report them from your backend to POST /v1/events',
  affiliateLimit: (plan: string, current: number, max: number) =>
    `Affiliate limit exceeded: Affiliate limit reached for ${plan} plan. Current: ${current}/${max}`,
  conversionLimit: (plan: string, current: number, max: number) =>
    `Conversion limit exceeded: Monthly conversion limit reached for ${plan} plan. Current: ${current}/${max}`,
  bodyTooLarge: (limitBytes: number) => `Request body must not be larger than ${limitBytes} bytes`,
  bodyTooDeep: (levels: number) => `body must not be nested more than ${levels} levels deep`,
  illFormedText: (path: string) => `${path} must be well-formed Unicode text (it holds an unpaired surrogate)`,
  illFormedKey: (path: string) =>
    `${path} has a key that is not well-formed Unicode text (it holds an unpaired surrogate)`,
  routeNotFound: (method: string, path: string) => `Cannot ${method} ${path}`,
  linkCampaignNotFound: 'No campaign has this link: check the campaign id in the address',
  linkWithoutSite:
    'This campaign has no site to send visitors to: set one with `affiliated campaigns update --site-url URL`',
  /** Every date range, one rule (shared/dateRange.ts). */
  rangeReversed: (from: string, to: string) => `from must not be after to (${from} is after ${to})`,
  methodNotAllowed: (method: string, path: string, allowed: string) =>
    `${method} is not allowed on ${path}: use ${allowed}`,
  methodNotImplemented: (method: string) =>
    `${method} is not supported: the API answers GET, POST, PUT, PATCH, DELETE and OPTIONS`,
  malformedRequest: 'Malformed HTTP request: check the request line and the headers',
  headersTooLarge: (bytes: number) => `Request headers must not be larger than ${bytes} bytes in all`,
  requestTimeout: (headersMs: number, requestMs: number) =>
    `Request timed out: send the headers within ${headersMs} ms and the whole request within ${requestMs} ms`,
  databaseUnavailable: 'The database is unavailable: retry in a few seconds',
  metricsTokenRequired: 'Metrics need the bearer token: send Authorization: Bearer <METRICS_TOKEN>',
  metricsLoopbackOnly:
    'Metrics are served to this machine only: scrape from 127.0.0.1 or ::1, or set METRICS_TOKEN and send it as a bearer token',
  notReadyUnreachable: 'Not ready: the database does not answer; check DATABASE_URL and that the server runs',
  notReadyFileGone:
    'Not ready: the SQLite file was deleted or moved while the daemon ran; put it back, or restore a backup, and restart the daemon',
  notReadyPending: (migration: string) =>
    `Not ready: the database lacks this build's migration ${migration}; run \`affiliated db migrate\` or start a daemon, which applies it`,
  notReadyNewer: (migration: string, known: string) =>
    `Not ready: the database's schema is newer than this build (it has ${migration}, this build knows up to ${known}); upgrade this daemon`,
  databaseBusy:
    'The database refused this write because concurrent writes kept taking the same rows: retry in a few seconds',
  illegalTransition: (kind: string, from: string, to: string) => `${kind} cannot move from ${from} to ${to}`,
  conversionInPayout: (payoutId: number) =>
    `Conversion cannot move from approved to rejected while it is in payout ${payoutId}: refund the order instead (POST /v1/refunds)`,
  conversionPaid: 'Conversion cannot move from paid to rejected: refund the order instead (POST /v1/refunds)',
  nothingToPay: (affiliateId: number) =>
    `Nothing to pay: affiliate ${affiliateId} has no approved conversions that are not in a payout yet`,
  clawbacksCoverPayout: (commission: string, clawbacks: string) =>
    `Nothing to pay: unsettled clawbacks of ${clawbacks} BRL cover the approved commissions of ${commission} BRL; they carry forward to a later payout`,
  belowPayoutMinimum: (amount: string, minimum: string) =>
    `Payout of ${amount} BRL is below the campaign's payout minimum of ${minimum} BRL: wait for more approved commissions`,
  invalidAsaasToken: 'Invalid asaas-access-token: it must equal the pix rail’s webhookToken (PUT /v1/payout-rails/pix)',
  invalidPayPalSignature:
    'Invalid PayPal webhook signature: check that the paypal rail’s webhookToken is the id of this PayPal webhook (PUT /v1/payout-rails/paypal)',
  payoutRailNotFound: (rail: string) =>
    `Payout rail ${rail} is not connected: connect it with PUT /v1/payout-rails/${rail}`,
  payoutRailNeeds: (rail: string, fields: string) => `Payout rail ${rail} needs ${fields}`,
  payoutRailRefuses: (rail: string, fields: string) => `Payout rail ${rail} takes no ${fields}`,
  // The reason codes of docs/payouts.md lead each refusal to send, so a script can read them.
  payoutNoDetails: (affiliateId: number) =>
    `no_payout_details: affiliate ${affiliateId} has no payout details yet (set in the portal); pay by hand and mark the payout paid`,
  payoutRailNotConnected: (rail: string) =>
    `rail_not_connected: the affiliate is paid by ${rail}, which this campaign has not connected: PUT /v1/payout-rails/${rail}, or pay by hand and mark the payout paid`,
  payoutCurrencyNotSupported: (rail: string, currency: string) =>
    `currency_not_supported: the ${rail} rail cannot pay ${currency}; pay by hand and mark the payout paid`,
  payoutAmountNotPayable: (currency: string) =>
    `amount_not_payable: the amount has no exact value in ${currency}'s minor unit; pay by hand and mark the payout paid`,
  payoutNotSendable: (status: string) => `Payout cannot be sent while it is ${status}: only a pending payout is sent`,
  payoutRunNotFound: 'Payout run not found',
  payoutRunBelowMinimum: (amount: string, minimum: string) =>
    `below_minimum: the balance of ${amount} (approved commissions less clawbacks) does not reach the campaign's payout minimum of ${minimum}: wait for more approved commissions`,
  payoutRunSameUser:
    'A second person must approve this payout run: ask another owner or admin of the campaign, not the one who started it',
  payoutRunNotAwaiting: (status: string) =>
    `Payout run cannot be approved while it is ${status}: only a run awaiting approval is approved, once`,
});

/** The body of every error answer, built one way. */
export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  return { statusCode, message, error: statusName(statusCode) };
}

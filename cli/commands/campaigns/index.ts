import { type Command, InvalidArgumentError, Option } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice, decimalNumber, outputOption, publicId, text, wholeNumber } from '../../options.js';
import { percentOption, productOption, recurringOption } from '../../ruleOptions.js';
import {
  APPROVAL_MODES,
  ATTRIBUTION_MODELS,
  MAX_AUTO_APPROVE_DAYS,
  OPERATOR_LIMITS,
  PAYOUT_SCHEDULES,
  SIGNUP_MODES,
} from '../../vocabulary.js';

/** `--payout-approval-above`: an amount, or `off` (no approval needed). */
function approvalThreshold(value: string): number | 'off' {
  if (value === 'off' || value === 'none') return 'off';
  try {
    return decimalNumber(value);
  } catch {
    throw new InvalidArgumentError('It must be an amount of at least 0, or off.');
  }
}

/** `--auto-approve-days`: days, or `off` (manual approval; commander turns a null into '', so a word). */
function holdPeriod(value: string): number | 'off' {
  if (value === 'off' || value === 'none') return 'off';
  if (!/^\d+$/.test(value) || Number(value) > MAX_AUTO_APPROVE_DAYS) {
    throw new InvalidArgumentError(`It must be a whole number from 0 to ${MAX_AUTO_APPROVE_DAYS}, or off.`);
  }
  return Number(value);
}

export function registerCampaigns(program: Command, io: Io): void {
  const campaigns = withExamples(program.command('campaigns').description('campaigns (operator)'), [
    'campaigns create --name "Spring sale"',
    'campaigns list',
    'campaigns update spring-sale --plan starter',
  ]);
  withExamples(
    campaigns
      .command('create')
      .description('create a campaign')
      .requiredOption(
        '--name <name>',
        `campaign name, at most ${OPERATOR_LIMITS.campaignName} characters`,
        text(OPERATOR_LIMITS.campaignName),
      )
      .option('--plan <plan>', 'plan name (see `affiliated plans list`)', 'free')
      .option(
        '--id <publicId>',
        `public id that events send as campaign_id, 3 to ${OPERATOR_LIMITS.publicId} letters, digits, - or _ (default: from the name, e.g. spring-sale)`,
        publicId,
      )
      .addOption(new Option('--public-id <publicId>', 'same as --id').hideHelp().argParser(publicId))
      .option('--commission-percent <x>', 'commission as a percentage of the order value (default 10)', decimalNumber)
      .option('--commission-fixed <x>', "fixed commission per conversion, in the campaign's currency", decimalNumber)
      .option(
        '--cookie-days <n>',
        `referral cookie lifetime in days, 1 to ${OPERATOR_LIMITS.cookieDays}`,
        wholeNumber(1, OPERATOR_LIMITS.cookieDays),
        30,
      ),
    [
      'campaigns create --name "Spring sale"                 # public id spring-sale',
      'campaigns create --name "Spring sale" --id spring-2027 --plan starter --commission-percent 12.5',
    ],
  ).action(async (options) => (await import('./actions.js')).create(io, { ...program.opts(), ...options }));
  withExamples(
    campaigns
      .command('update')
      .description('change a campaign’s plan, commission rule, hold period, payout minimum or affiliate portal')
      .argument('<id>', 'campaign id or public id')
      .option('--plan <plan>', 'plan name (see `affiliated plans list`)')
      .option('--commission-percent <x>', 'commission as a percentage of the order value', decimalNumber)
      .option('--commission-fixed <x>', "fixed commission per conversion, in the campaign's currency", decimalNumber)
      .option(
        '--auto-approve-days <n>',
        'approve pending conversions older than N days (0 to 3650); "off" for manual approval',
        holdPeriod,
      )
      .option('--payout-minimum <x>', "smallest payout, in the campaign's currency (0: any amount)", decimalNumber)
      .option(
        '--recurring <limit>',
        "which of a customer's payments earn: lifetime, first, or <N>m (N months from the first)",
        recurringOption,
      )
      .option('--second-tier-percent <x>', "percent of a child's commission its parent earns (0: none)", percentOption)
      .option(
        '--product <name=rate>',
        'a product rule, "NAME=PERCENT%" or "NAME=AMOUNT" (the campaign\'s currency); repeat for each; replaces the product rules',
        productOption,
      )
      .option('--no-products', 'remove every product rule of the campaign')
      .addOption(choice('--portal <on|off>', 'serve the affiliate portal at /portal/PUBLIC_ID/', ['on', 'off']))
      .addOption(choice('--signup <mode>', 'whether people may apply through the portal', SIGNUP_MODES))
      .addOption(
        choice(
          '--approve-affiliates <mode>',
          'sign-ups wait for approval (manual) or start active (auto)',
          APPROVAL_MODES,
        ),
      )
      .option('--contact-email <email>', "where the “application received” mail goes; '' for none")
      .option('--site-url <url>', "the shop’s address, which affiliates’ referral links point to; '' for none")
      .addOption(
        choice(
          '--attribution <model>',
          'which of a customer’s clicks a lead or sale counts for, within the cookie days (default last_click)',
          ATTRIBUTION_MODELS,
        ),
      )
      .addOption(
        choice(
          '--payout-schedule <schedule>',
          'when the daemon runs the payouts by itself: weekly (Mondays 00:00 UTC), monthly (the 1st, 00:00 UTC) or manual',
          PAYOUT_SCHEDULES,
        ),
      )
      .option(
        '--payout-approval-above <x>',
        "a payout run whose total is above this (in the campaign's currency) waits for a second person's approval on the dashboard; off for none",
        approvalThreshold,
      )
      .option(
        '--currency <code>',
        'ISO 4217 code of the campaign’s money: every amount is shown and read in it, and billing providers must charge in it (default BRL)',
      ),
    [
      'campaigns update spring-sale --auto-approve-days 30 --payout-minimum 50',
      'campaigns update spring-sale --plan pro',
      'campaigns update spring-sale --recurring 12m --second-tier-percent 5',
      'campaigns update spring-sale --product "Pro plan=20%" --product "Starter=5"',
      'campaigns update spring-sale --portal on --signup open --approve-affiliates manual --contact-email partners@shop.example',
      'campaigns update spring-sale --site-url https://shop.example',
      'campaigns update spring-sale --currency USD               # Stripe or Paddle charge in dollars',
      'campaigns update spring-sale --attribution first_click',
      'campaigns update spring-sale --payout-schedule weekly --payout-approval-above 5000',
    ],
    'A new commission rule applies to conversions that arrive from now on; stored ones keep theirs.\n' +
      'A hold period applies to the pending conversions already there, at the next scheduled run.\n' +
      'Rules, groups and their precedence: docs/commissions.md.\n' +
      'Payout schedules and approvals: docs/payouts.md#payout-runs.\n' +
      'The portal is off by default; see docs/portal.md for turning it on and for e-mail (SMTP_URL).',
  ).action(async (id: string, options) =>
    (await import('./actions.js')).update(io, { ...program.opts(), ...options }, id),
  );
  withExamples(outputOption(campaigns.command('list').description('list campaigns')), [
    'campaigns list',
    'campaigns list --output csv',
  ]).action(async (options) => (await import('./actions.js')).list(io, { ...program.opts(), ...options }));
  withExamples(
    campaigns
      .command('get')
      .description('show one campaign with its limits and this month’s usage')
      .argument('<id>', 'campaign id or public id'),
    ['campaigns get spring-sale', 'campaigns get 1 --json'],
  ).action(async (id: string) => (await import('./actions.js')).get(io, program.opts(), id));
}

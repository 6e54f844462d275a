import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice, decimalNumber, outputOption, pagingOptions, wholeNumber } from '../../options.js';
import { percentOption } from '../../ruleOptions.js';
import { AFFILIATE_STATUSES } from '../../vocabulary.js';
import { payoutOptions } from './payoutOptions.js';

const CLEAR = "; '' clears it";

/** `--group ID` or `--parent ID`, or `none` to clear it (a word: commander turns a null into ''). */
const idOrNone = (value: string): number | 'none' => (value === 'none' ? 'none' : wholeNumber(1)(value));

/** The commission rule options of create and update (docs/commissions.md). */
function ruleOptions<C extends Command>(command: C): C {
  return command
    .option('--group <id>', "the affiliate's group (its rule applies); none: the campaign's rule", idOrNone)
    .option('--commission-percent <x>', "the affiliate's own rate, a percent: beats every other rule", percentOption)
    .option(
      '--commission-fixed <x>',
      "the affiliate's own rate per conversion, in the campaign's currency",
      decimalNumber,
    )
    .option('--parent <id>', 'the affiliate who earns a second-tier commission on its sales; none: nobody', idOrNone);
}

/** Client commands for the affiliate routes: they talk to a daemon over HTTP. */
export function registerAffiliates(program: Command, io: Io): void {
  const affiliates = withExamples(program.command('affiliates').description('manage affiliates through the API'), [
    'affiliates list --status active',
    'affiliates create --email maria@example.com --name "Maria Silva"',
    'affiliates get 42',
  ]);
  const run = clientCommand(program, io, () => import('./actions.js'));

  const list = affiliates
    .command('list')
    .description('list affiliates, newest first')
    .addOption(choice('--status <status>', 'only this status', AFFILIATE_STATUSES))
    .option('--search <text>', 'partial match over name, e-mail and referral code')
    .option('--group <id>', 'only the affiliates of this group', wholeNumber(1));
  pagingOptions(list).option('--all', 'follow every page and print them all');
  outputOption(list);
  withExamples(list, [
    'affiliates list --status active --search maria',
    "affiliates list --all --json | jq '.affiliates | length'",
    'affiliates list --all --output csv > affiliates.csv',
  ]).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  withExamples(
    affiliates.command('get').description('show one affiliate').argument('<id>', 'affiliate id', wholeNumber(1)),
    ['affiliates get 42', 'affiliates get 42 --json'],
  ).action((id: number) => run((a, client, globals) => a.get(io, client, globals, id)));
  withExamples(
    ruleOptions(
      payoutOptions(affiliates.command('create'))
        .description('create an affiliate (password asked for, hidden, on a terminal when not given)')
        .requiredOption('--email <email>', 'e-mail, unique in the campaign')
        .option('--password <password>', 'at least 6 characters (prefer the prompt: it stays out of history)')
        .option('--name <name>', 'full name')
        .option('--phone <phone>', 'phone number')
        .option('--referral-id <code>', 'referral code, letters and digits (default: generated)')
        .addOption(choice('--status <status>', 'initial status (default active)', AFFILIATE_STATUSES))
        .option(
          '--invite',
          'then invite it to choose its own password in the portal (as `affiliates invite ID`); no password asked for',
        ),
    ),
    [
      'affiliates create --email maria@example.com --name "Maria Silva" --referral-id MARIA10',
      'affiliates create --email bia@example.com --group 3 --parent 42',
      'affiliates create --email leo@example.com --name "Leo Lima" --invite',
      'affiliates create --email ana@example.com --pix-key 529.982.247-25 --pix-key-type cpf',
    ],
  ).action((flags) => run((a, client, globals) => a.create(io, client, globals, flags)));
  withExamples(
    affiliates
      .command('invite')
      .description(
        'mail an affiliate a link to choose its portal password (printed instead when the daemon sends no mail); ' +
          'the link works once, for 7 days',
      )
      .argument('<id>', 'affiliate id', wholeNumber(1)),
    ['affiliates invite 42', 'affiliates invite 42 --json'],
  ).action((id: number) => run((a, client, globals) => a.invite(io, client, globals, id)));
  withExamples(
    ruleOptions(
      payoutOptions(affiliates.command('update'))
        .description('change some fields of an affiliate; the others stay as they are')
        .argument('<id>', 'affiliate id', wholeNumber(1))
        .option('--email <email>', 'new e-mail')
        .option('--password [password]', 'new password; asked for, hidden, when given without a value')
        .option('--name <name>', `new full name${CLEAR}`)
        .option('--phone <phone>', `new phone number${CLEAR}`)
        .option('--referral-id <code>', 'new referral code (tracking with the old code stops counting)')
        .addOption(choice('--status <status>', 'new status', AFFILIATE_STATUSES)),
    )
      .option('--no-commission-override', "remove the affiliate's own rate: its group's or the campaign's applies")
      .option('--no-payout-details', "clear the affiliate's payout details: its payouts are paid by hand"),
    [
      'affiliates update 42 --status inactive',
      "affiliates update 42 --phone ''   # clears the phone",
      'affiliates update 42 --group 3 --parent 7',
      'affiliates update 42 --commission-percent 12.5',
      'affiliates update 42 --no-commission-override --group none',
      'affiliates update 42 --stripe-account acct_1A2b3C4d5E6f7G8h',
    ],
  ).action((id: number, flags) => run((a, client, globals) => a.update(io, client, globals, id, flags)));
  withExamples(
    affiliates
      .command('approve')
      .description('approve pending affiliates (applicants of the affiliate portal): they become active and are mailed')
      .argument('[ids...]', 'affiliate ids', (value: string, previous: number[] = []) => [
        ...previous,
        wholeNumber(1)(value),
      ])
      .option('--all-pending', 'every pending affiliate, oldest first'),
    ['affiliates approve 42', 'affiliates approve 42 43', 'affiliates approve --all-pending --json'],
  ).action((ids: number[] | undefined, flags) =>
    run((a, client, globals) => a.approve(io, client, globals, ids ?? [], flags)),
  );
  withExamples(
    affiliates
      .command('delete')
      .description(
        'delete an affiliate and everything attached to it (conversions, payouts paid or not, events); ' +
          '`update ID --status inactive` keeps them',
      )
      .argument('<id>', 'affiliate id', wholeNumber(1))
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['affiliates delete 42', 'affiliates delete 42 --yes   # in a script'],
  ).action((id: number, flags) => run((a, client, globals) => a.remove(io, client, globals, id, flags)));

  const coupons = affiliates
    .command('coupons')
    .description('coupon codes that make Stripe or Paddle payments an affiliate’s');
  const runCoupons = clientCommand(program, io, () => import('./coupons.js'));
  const affiliateId = ['<id>', 'affiliate id', wholeNumber(1)] as const;
  withExamples(
    coupons
      .command('add')
      .description(
        'give an affiliate a coupon code (the Stripe coupon or promotion-code id, or the Paddle discount id)',
      )
      .argument(...affiliateId)
      .argument('<code>', 'letters, digits, "-" and "_", 2 to 64; unique in the campaign whatever the case'),
    ['affiliates coupons add 42 MARIA-WINTER'],
  ).action((id: number, code: string) =>
    runCoupons((a, client, globals) => a.addCoupon(io, client, globals, id, code)),
  );
  withExamples(
    outputOption(
      coupons
        .command('list')
        .description('list an affiliate’s coupons')
        .argument(...affiliateId),
    ),
    ['affiliates coupons list 42'],
  ).action((id: number, flags) => runCoupons((a, client, globals) => a.listCoupons(io, client, globals, id, flags)));
  withExamples(
    coupons
      .command('remove')
      .description('take a coupon from an affiliate')
      .argument(...affiliateId)
      .argument('<code>', 'the code'),
    ['affiliates coupons remove 42 MARIA-WINTER'],
  ).action((id: number, code: string) =>
    runCoupons((a, client, globals) => a.removeCoupon(io, client, globals, id, code)),
  );
}

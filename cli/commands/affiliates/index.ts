import type { Command } from 'commander';
import type { ApiClient } from '../../../shared/client/index.js';
import { AFFILIATE_STATUSES } from '../../../shared/schemas/affiliate.js';
import type { Io } from '../../io.js';
import { oneOf, wholeNumber } from '../../options.js';
import type { GlobalOptions } from '../../output.js';
import type * as Actions from './actions.js';

/** Client commands for seed-spec §4.1–4.5: they talk to a daemon over HTTP. */
export function registerAffiliates(program: Command, io: Io): void {
  const affiliates = program.command('affiliates').description('manage affiliates through the API');
  // Actions and the HTTP client load only when a command runs; the action gets them passed in.
  const run = async (
    work: (actions: typeof Actions, client: ApiClient, globals: GlobalOptions) => Promise<void>,
  ) => {
    const [actions, { connect }] = await Promise.all([import('./actions.js'), import('../../client.js')]);
    const globals: GlobalOptions = program.opts();
    return work(actions, await connect(io, globals), globals);
  };
  const status = oneOf(AFFILIATE_STATUSES);

  affiliates
    .command('list')
    .description('list affiliates, newest first')
    .option('--status <status>', `only this status (${AFFILIATE_STATUSES.join(', ')})`, status)
    .option('--search <text>', 'partial match over name, e-mail and referral code')
    .option('--page <n>', 'page number (from 1)', wholeNumber(1))
    .option('--limit <n>', 'page size, 1 to 100 (default 50)', wholeNumber(1))
    .option('--all', 'follow every page and print them all')
    .addHelpText(
      'after',
      '\nExamples:\n  $ affiliated affiliates list --status active --search maria\n' +
        '  $ affiliated affiliates list --all --json | jq length',
    )
    .action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  affiliates
    .command('get')
    .description('show one affiliate')
    .argument('<id>', 'affiliate id', wholeNumber(1))
    .action((id: number) => run((a, client, globals) => a.get(io, client, globals, id)));
  affiliates
    .command('create')
    .description('create an affiliate (password asked for, hidden, on a terminal when not given)')
    .requiredOption('--email <email>', 'e-mail, unique in the campaign')
    .option('--password <password>', 'at least 6 characters (prefer the prompt: it stays out of history)')
    .option('--name <name>', 'full name')
    .option('--phone <phone>', 'phone number')
    .option('--referral-id <code>', 'referral code, letters and digits (default: generated)')
    .option('--status <status>', `initial status (default active)`, status)
    .addHelpText(
      'after',
      '\nExample:\n  $ affiliated affiliates create --email maria@example.com --name "Maria Silva" --referral-id MARIA10',
    )
    .action((flags) => run((a, client, globals) => a.create(io, client, globals, flags)));
  affiliates
    .command('update')
    .description('change some fields of an affiliate; the others stay as they are')
    .argument('<id>', 'affiliate id', wholeNumber(1))
    .option('--email <email>', 'new e-mail')
    .option('--password [password]', 'new password; asked for, hidden, when given without a value')
    .option('--name <name>', 'new full name')
    .option('--phone <phone>', 'new phone number')
    .option('--referral-id <code>', 'new referral code (tracking with the old code stops counting)')
    .option('--status <status>', AFFILIATE_STATUSES.join(', '), status)
    .addHelpText('after', '\nExample:\n  $ affiliated affiliates update 42 --status inactive')
    .action((id: number, flags) => run((a, client, globals) => a.update(io, client, globals, id, flags)));
  affiliates
    .command('delete')
    .description('delete an affiliate and everything attached to it (conversions, payouts, events)')
    .argument('<id>', 'affiliate id', wholeNumber(1))
    .option('--yes', 'do not ask for confirmation (required when not on a terminal)')
    .action((id: number, flags) => run((a, client, globals) => a.remove(io, client, globals, id, flags)));
}

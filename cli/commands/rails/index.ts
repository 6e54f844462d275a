import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { outputOption } from '../../options.js';
import { PAYOUT_RAIL_NAMES } from '../../vocabulary.js';

/** Payout rails (docs/payouts.md#payout-rails): the campaign's credentials for Asaas (Pix), PayPal and Stripe. */
export function registerRails(program: Command, io: Io): void {
  const rails = program
    .command('rails')
    .description('payout rails: connect Asaas (Pix), PayPal or Stripe so the daemon pays affiliates');
  const run = clientCommand(program, io, () => import('./actions.js'));
  const rail = ['<rail>', PAYOUT_RAIL_NAMES.join(', ')] as const;

  withExamples(
    rails
      .command('set')
      .description('connect a rail, or replace its credentials; they are stored encrypted and never shown again')
      .argument(...rail)
      .option('--asaas-api-key <key>', 'pix: the Asaas API key ($aact_…); else asked, hidden, on a terminal')
      .option('--client-id <id>', 'paypal: the REST app’s client id; else asked on a terminal')
      .option('--client-secret <secret>', 'paypal: the REST app’s secret; else asked, hidden, on a terminal')
      .option('--secret-key <key>', 'stripe: the platform’s secret key (sk_live_…); else asked, hidden, on a terminal')
      .option(
        '--webhook-token <token>',
        'pix: the Asaas webhook’s authentication token; paypal: the webhook id (without it callbacks are refused and the daemon polls)',
      )
      .option('--public-url <url>', 'the address providers reach the daemon at (default: the base URL)'),
    [
      'rails set pix --webhook-token … --public-url https://affiliates.example.com   # asks for the API key, hidden',
      'rails set paypal --client-id AbC… --webhook-token 8PT5…',
      'rails set stripe --secret-key sk_test_…',
    ],
    'A flag stays in the shell history: on a terminal leave the secrets out and type them when asked.',
  ).action((name: string, flags) => run((a, client, globals) => a.set(io, client, globals, name, flags)));
  withExamples(outputOption(rails.command('list').description('list the connected rails (never their credentials)')), [
    'rails list',
    'rails list --json',
  ]).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  withExamples(
    rails
      .command('remove')
      .description('disconnect a rail: its payouts still processing wait until it is connected again')
      .argument(...rail)
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['rails remove paypal --yes'],
  ).action((name: string, flags) => run((a, client, globals) => a.remove(io, client, globals, name, flags)));
}

import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice, outputOption, pagingOptions } from '../../options.js';
import { BILLING_OUTCOMES, BILLING_PROVIDERS } from '../../vocabulary.js';

/** Billing integrations (docs/integrations.md): Stripe and Paddle send sales, renewals and refunds. */
export function registerIntegrations(program: Command, io: Io): void {
  const integrations = program
    .command('integrations')
    .description('billing integrations: Stripe and Paddle send sales, renewals and refunds');
  const run = clientCommand(program, io, () => import('./actions.js'));
  const provider = ['<provider>', `${BILLING_PROVIDERS.join(' or ')}`] as const;

  withExamples(
    integrations
      .command('set')
      .description('connect a provider, or rotate its signing secret; prints the URL and the event types to enable')
      .argument(...provider)
      .option(
        '--signing-secret <secret>',
        'the endpoint’s signing secret (Stripe whsec_…, Paddle pdl_ntfset_…); else AFFILIATED_SIGNING_SECRET, ' +
          'else asked, hidden, on a terminal (a flag stays in the shell history)',
      )
      .option('--public-url <url>', 'the address providers reach the daemon at (default: the base URL)'),
    [
      'integrations set stripe --signing-secret whsec_… --public-url https://affiliates.example.com',
      'integrations set paddle                # asks for the secret, hidden',
      'AFFILIATED_SIGNING_SECRET=… integrations set paddle',
    ],
    'Sent again, the secret rotates: the previous one keeps verifying for 24 hours.',
  ).action((name: string, flags) => run((a, client, globals) => a.set(io, client, globals, name, flags)));
  withExamples(
    outputOption(integrations.command('list').description('list integrations and what their events became')),
    ['integrations list', 'integrations list --json'],
  ).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  withExamples(
    integrations
      .command('remove')
      .description('disconnect a provider: its URL answers 404 from then on (the event log is kept)')
      .argument(...provider)
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['integrations remove paddle --yes'],
  ).action((name: string, flags) => run((a, client, globals) => a.remove(io, client, globals, name, flags)));
  withExamples(
    outputOption(
      pagingOptions(
        integrations
          .command('events')
          .description('the provider events received, newest first, with their outcome')
          .addOption(choice('--provider <provider>', 'only this provider', BILLING_PROVIDERS))
          .addOption(choice('--outcome <outcome>', 'only this outcome', BILLING_OUTCOMES)),
      ),
    ),
    ['integrations events', 'integrations events --provider stripe --outcome skipped'],
  ).action((flags) => run((a, client, globals) => a.events(io, client, globals, flags)));
}

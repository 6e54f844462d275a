import type { Command } from 'commander';
import { EVENT_TYPES, MAX_EVENTS_PER_REQUEST } from '../../vocabulary.js';
import type { Io } from '../../io.js';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import { choice, positiveNumber, wholeNumber } from '../../options.js';

export function registerEvents(program: Command, io: Io): void {
  const events = withExamples(program.command('events').description('send tracking events through the API'), [
    'events send --type page_view --affiliate MARIA10',
    'events replay export.ndjson',
  ]);
  const send = clientCommand(program, io, () => import('./send.js'));
  const replay = clientCommand(program, io, () => import('./replay/action.js'));

  withExamples(
    events
      .command('send')
      .description('send one event')
      .addOption(choice('--type <type>', 'event type', EVENT_TYPES).makeOptionMandatory())
      .option('--campaign <publicId>', 'the campaign’s public id (default: the API key’s campaign)')
      .requiredOption('--affiliate <code>', 'the affiliate’s referral code (affiliate_id)')
      .option('--order-id <id>', 'order id (conversions)')
      .option(
        '--order-value <value>',
        "order value in the campaign's currency (conversions): above 0, at least 0.01 once rounded half up, at most 10000000000",
        positiveNumber,
      )
      .option('--product <name>', 'the product sold (properties.product): product commission rules match it')
      .option('--customer-email <email>', 'the customer (properties.customer_email): recurring limits count it')
      .option('--timestamp <iso>', 'when it happened, ISO 8601 with Z or an offset (default: now)')
      .option('--event-id <id>', 'your id for the event: sent again, it is stored once')
      .option('--session <id>', 'session id'),
    [
      'events send --type page_view --affiliate MARIA10',
      'events send --type conversion --affiliate MARIA10 --order-id 1001 --order-value 249.90',
      'events send --type conversion --affiliate MARIA10 --order-id 1002 --order-value 49.90 --product "Plano Pro"',
    ],
  ).action((flags) => send((a, client, globals) => a.send(io, client, globals, flags)));

  withExamples(
    events
      .command('replay')
      .description('send a file of events, one JSON object a line, safely: resumable and never stored twice')
      .argument('<file>', 'NDJSON file (one event a line; blank lines are ignored)')
      .option(
        '--batch-size <n>',
        `events a request, 1 to ${MAX_EVENTS_PER_REQUEST}`,
        wholeNumber(1, MAX_EVENTS_PER_REQUEST),
        500,
      )
      .option('--concurrency <n>', 'batches in flight at once, 1 to 16', wholeNumber(1, 16), 3)
      .option(
        '--rejects <file>',
        'where refused lines go, with line numbers and reasons (default: FILE.rejects.ndjson; ' +
          'FILE.dry-run.rejects.ndjson with --dry-run)',
      )
      .option('--checkpoint <file>', 'where progress is saved (default: FILE.checkpoint.json)')
      .option('--resume', 'continue after the last acknowledged line of the checkpoint')
      .option(
        '--dry-run',
        'validate every line and send nothing; never touches a real run’s rejects file or checkpoint',
      ),
    [
      'events replay export.ndjson',
      'events replay export.ndjson --resume          # after Ctrl-C or an error',
      'events replay export.ndjson --dry-run --json',
    ],
    'Exit codes: 0 every line accepted or skipped, 1 a line rejected or the run stopped early, 2 usage error.',
  ).action((file: string, flags) =>
    // A dry run needs no daemon and no key.
    replay((a, client, globals) => a.runReplay(io, client, globals, { ...flags, file }), !flags.dryRun),
  );
}

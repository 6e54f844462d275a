import { type Command, InvalidArgumentError } from 'commander';
import { EVENT_TYPES, MAX_EVENTS_PER_REQUEST } from '../../vocabulary.js';
import type { Io } from '../../io.js';
import { withExamples } from '../../help.js';
import { choice, decimalNumber } from '../../options.js';
import type { GlobalOptions } from '../../output.js';

function batchSize(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > MAX_EVENTS_PER_REQUEST) {
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_EVENTS_PER_REQUEST}.`);
  }
  return n;
}

function concurrency(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 16) throw new InvalidArgumentError('must be a whole number from 1 to 16.');
  return n;
}

/** Ctrl-C (or SIGTERM) once: finish the batch in flight and save; twice: the default, quit now. */
function interruptSignal(io: Io): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const onSignal = () => {
    io.stderr.write('\nStopping after the batches in flight (Ctrl-C again to quit at once)...\n');
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

export function registerEvents(program: Command, io: Io): void {
  const events = program.command('events').description('send tracking events through the API');
  const connect = async (globals: GlobalOptions) => (await import('../../client.js')).connect(io, globals);

  withExamples(
    events
      .command('send')
      .description('send one event')
      .addOption(choice('--type <type>', 'event type', EVENT_TYPES).makeOptionMandatory())
      .option('--campaign <publicId>', 'the campaign’s public id (default: the API key’s campaign)')
      .requiredOption('--affiliate <code>', 'the affiliate’s referral code (affiliate_id)')
      .option('--order-id <id>', 'order id (conversions)')
      .option('--order-value <value>', 'order value in BRL (conversions)', decimalNumber)
      .option('--session <id>', 'session id'),
    [
      'events send --type page_view --affiliate MARIA10',
      'events send --type conversion --affiliate MARIA10 --order-id 1001 --order-value 249.90',
    ],
  ).action(async (flags) => {
    const globals: GlobalOptions = program.opts();
    const [{ send }, client] = await Promise.all([import('./send.js'), connect(globals)]);
    await send(io, client, globals, flags);
  });

  withExamples(
    events
      .command('replay')
      .description('send a file of events, one JSON object a line, safely: resumable and never stored twice')
      .argument('<file>', 'NDJSON file (one event a line; blank lines are ignored)')
      .option('--batch-size <n>', `events a request, 1 to ${MAX_EVENTS_PER_REQUEST}`, batchSize, 500)
      .option('--concurrency <n>', 'batches in flight at once, 1 to 16', concurrency, 3)
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
  ).action(async (file: string, flags) => {
    const globals: GlobalOptions = program.opts();
    const [{ runReplay }, client] = await Promise.all([
      import('./replay.js'),
      flags.dryRun ? undefined : connect(globals),
    ]);
    const interrupt = interruptSignal(io);
    try {
      await runReplay(io, client, interrupt.signal, globals, { ...flags, file });
    } finally {
      interrupt.release();
    }
  });
}

import { type Command, Option } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { publicId, text } from '../../options.js';
import { OPERATOR_LIMITS } from '../../vocabulary.js';

export function registerInit(program: Command, io: Io): void {
  withExamples(
    program
      .command('init')
      .description(
        'first run: create a campaign and an API key, save a profile for the client commands, and check the daemon answers with it',
      )
      .option(
        '--name <name>',
        `campaign name, at most ${OPERATOR_LIMITS.campaignName} characters (asked on a terminal when left out)`,
        text(OPERATOR_LIMITS.campaignName),
      )
      .option(
        '--id <publicId>',
        `the campaign’s public id, 3 to ${OPERATOR_LIMITS.publicId} letters, digits, - or _ (default: from the name, e.g. spring-sale)`,
        publicId,
      )
      .option(
        '--plan <plan>',
        'plan name: caps on affiliates and monthly conversions, for a daemon serving several merchants ' +
          '(default unlimited; asked on a terminal, with each plan’s limits)',
      )
      .option('--force', 'replace the profile if it exists (on a terminal you are asked instead)')
      .addOption(new Option('--base-url-to-save <url>', 'same as the global --base-url').hideHelp()),
    [
      'init',
      'init --name "Spring sale" --plan free --base-url http://127.0.0.1:3999',
      '--profile staging init --name "Spring sale" --plan starter --force',
    ],
    'The address saved is the global --base-url, else asked on a terminal, else the HOST and PORT of\n' +
      'the daemon’s configuration here (environment and .env), e.g. http://127.0.0.1:3000.',
  ).action(async (options) => (await import('./action.js')).runInit(io, { ...program.opts(), ...options }));
}

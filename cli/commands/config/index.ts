import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { oneOf } from '../../options.js';
import { SETTINGS } from './settings.js';

export function registerConfig(program: Command, io: Io): void {
  const config = program
    .command('config')
    .description('connection profiles for client commands (base-url, api-key), in a file with mode 0600');
  config
    .command('set')
    .description('save a setting in the profile (--profile NAME, default "default")')
    .argument('<setting>', `one of: ${SETTINGS.join(', ')}`, oneOf(SETTINGS))
    .argument('[value]', 'the value; api-key is asked for, hidden, on a terminal when omitted')
    .addHelpText(
      'after',
      '\nExamples:\n  $ affiliated config set base-url http://127.0.0.1:3000\n' +
        '  $ affiliated config set api-key            # asks, hidden\n' +
        '  $ affiliated --profile staging config set api-key afk_...',
    )
    .action(async (setting, value?: string) =>
      (await import('./actions.js')).set(io, program.opts(), setting, value),
    );
  config
    .command('get')
    .description('show the setting in effect and where it comes from (api keys masked)')
    .argument('<setting>', `one of: ${SETTINGS.join(', ')}`, oneOf(SETTINGS))
    .action(async (setting) => (await import('./actions.js')).get(io, program.opts(), setting));
  config
    .command('list')
    .description('list saved profiles (api keys masked) and the connection in effect')
    .action(async () => (await import('./actions.js')).list(io, program.opts()));
}

import { Argument, type Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { SETTINGS } from './settings.js';

export function registerConfig(program: Command, io: Io): void {
  const config = withExamples(
    program
      .command('config')
      .description('connection profiles for client commands (base-url, api-key), in a file with mode 0600'),
    ['config set base-url http://127.0.0.1:3000', 'config set api-key', 'config list'],
  );
  const setting = () => new Argument('<setting>', 'which setting').choices(SETTINGS);
  withExamples(
    config
      .command('set')
      .description('save a setting in the profile (--profile NAME, else the one in use)')
      .addArgument(setting())
      .argument('[value]', 'the value; api-key is asked for, hidden, on a terminal when omitted'),
    [
      'config set base-url http://127.0.0.1:3000',
      'config set api-key            # asks, hidden',
      '--profile staging config set api-key afk_...',
    ],
  ).action(async (name, value?: string) => (await import('./actions.js')).set(io, program.opts(), name, value));
  withExamples(
    config
      .command('get')
      .description('show the setting in effect and where it comes from (api keys masked)')
      .addArgument(setting()),
    ['config get base-url', 'config get api-key --json'],
  ).action(async (name) => (await import('./actions.js')).get(io, program.opts(), name));
  withExamples(
    config.command('list').description('list saved profiles (api keys masked) and the connection in effect'),
    ['config list', 'config list --json'],
  ).action(async () => (await import('./actions.js')).list(io, program.opts()));
  withExamples(
    config
      .command('use')
      .description('use this profile for client commands from now on (--profile and AFFILIATED_PROFILE still win)')
      .argument('<profile>', 'a saved profile (see `affiliated config list`)'),
    ['config use staging', 'config use default'],
  ).action(async (name: string) => (await import('./actions.js')).use(io, program.opts(), name));
  withExamples(
    config
      .command('delete')
      .description('delete a saved profile and the key it holds')
      .argument('<profile>', 'a saved profile (see `affiliated config list`)')
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['config delete staging', 'config delete staging --yes'],
  ).action(async (name: string, options) =>
    (await import('./actions.js')).remove(io, { ...program.opts(), ...options }, name),
  );
}

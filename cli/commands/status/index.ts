import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';

/** `affiliated status`: is everything a client command needs in place? */
export function registerStatus(program: Command, io: Io): void {
  withExamples(
    program
      .command('status')
      .description('check the connection: base URL, daemon and database reachable, API key valid and its campaign'),
    ['status', '--profile staging status', 'status --json'],
    'Exit code 0 when every check passes, 1 otherwise.',
  ).action(async () => (await import('./action.js')).status(io, program.opts()));
}

import type { Command } from 'commander';
import type { Io } from '../../io.js';

export function registerInit(program: Command, io: Io): void {
  program
    .command('init')
    .description('first run: create a campaign and an API key, and save a profile for the client commands')
    .option('--name <name>', 'campaign name (asked on a terminal when left out)')
    .option('--plan <plan>', 'plan name (asked on a terminal when left out)')
    .option('--base-url-to-save <url>', 'daemon address to save in the profile (default from HOST and PORT)')
    .action(async (options) => (await import('./action.js')).runInit(io, { ...program.opts(), ...options }));
}

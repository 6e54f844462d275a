import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { wholeNumber } from '../../options.js';

export function registerServe(program: Command, io: Io): void {
  withExamples(
    program
      .command('serve')
      .description('run the daemon (HTTP API) on DATABASE_URL; migrations run first')
      .option('--port <n>', 'port to listen on (default: PORT or 3000)', wholeNumber(0))
      .option('--host <host>', 'address to listen on (default: HOST or 127.0.0.1)')
      .option('--no-migrate', 'do not run pending migrations at start'),
    ['serve', 'DATABASE_URL=mysql://app:secret@db:3306/affiliated serve --port 8080'],
  ).action(async (options: { port?: number; host?: string; migrate: boolean }) => {
    const { runServe } = await import('./action.js');
    await runServe(io, options);
  });
}

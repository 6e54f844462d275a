import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';

/** `affiliated snippet`: the tracking script tag for the key's campaign (docs/tracking.md). */
export function registerSnippet(program: Command, io: Io): void {
  const run = clientCommand(program, io, () => import('./action.js'));
  withExamples(
    program
      .command('snippet')
      .description("print the <script> tag that tracks referrals on your site, for the key's campaign")
      .option('--public-url <url>', 'the daemon as browsers reach it (default: the base URL in use)'),
    ['snippet', 'snippet --public-url https://affiliates.example.com > tracker.html'],
  ).action((flags: { publicUrl?: string }) => run((a, client, globals) => a.snippet(io, client, globals, flags)));
}

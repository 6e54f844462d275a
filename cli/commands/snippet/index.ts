import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import type { GlobalOptions } from '../../output.js';

/** `affiliated snippet`: the tracking script tag for the key's campaign (docs/tracking.md). */
export function registerSnippet(program: Command, io: Io): void {
  withExamples(
    program
      .command('snippet')
      .description("print the <script> tag that tracks referrals on your site, for the key's campaign")
      .option('--public-url <url>', 'the daemon as browsers reach it (default: the base URL in use)'),
    ['snippet', 'snippet --public-url https://affiliates.example.com > tracker.html'],
  ).action(async (flags: { publicUrl?: string }) => {
    const [{ snippet }, { connect }] = await Promise.all([import('./action.js'), import('../../client.js')]);
    const globals: GlobalOptions = program.opts();
    return snippet(io, await connect(io, globals), globals, flags);
  });
}

import type { ApiClient } from '../../../shared/client/index.js';
import { AlreadyReported } from '../../errors.js';
import type { Io } from '../../io.js';
import type { GlobalOptions } from '../../output.js';
import { printSummary } from './replay/report.js';
import { type ReplayOptions, replay } from './replay/run.js';

/**
 * The action: runs the replay and reports it. Exit 0 when every line was accepted or skipped,
 * 1 when a line was rejected or the run stopped early (issue 5); the summary is already out,
 * so main.ts prints nothing more.
 */
export async function runReplay(
  io: Io,
  client: ApiClient | undefined,
  signal: AbortSignal,
  options: GlobalOptions,
  flags: ReplayOptions,
): Promise<void> {
  const summary = await replay({ io, client, signal }, flags);
  printSummary(io, summary, Boolean(options.json));
  if (summary.stopped || summary.rejected > 0) throw new AlreadyReported('replay incomplete');
}

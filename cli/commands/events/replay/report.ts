import type { Io } from '../../../io.js';
import { agree, note, printJson, printLine } from '../../../output.js';
import type { Stopped } from './stop.js';
import { skippedCount, type Totals } from './totals.js';

const number = (n: number) => n.toLocaleString('en-US');

/** What a replay reports at its end: the object `--json` prints. */
export interface ReplaySummary extends Totals {
  durationMs: number;
  file: string;
  dryRun: boolean;
  resumedFromLine: number;
  lastLine: number;
  rejectsFile: string | null;
  checkpointFile: string | null;
  concurrency: number;
  requests: number;
  rateLimitWaits: number;
  /** Time this run spent waiting for the rate limit's window to reset (or a 429's Retry-After). */
  rateLimitWaitMs: number;
  /** `X-RateLimit-Limit` as the daemon said it: `/v1/events` requests a window, per key. */
  rateLimit: number | null;
  retries: { rateLimited: number; serverErrors: number; networkErrors: number };
  stopped: Stopped | null;
  /** Peak resident memory of this process, for checking that memory stays flat. */
  maxRssBytes: number;
}

/**
 * Time spent waiting on the rate limit, and how to raise it: the limit is the daemon's
 * (RATE_LIMIT_EVENTS_PER_MIN requests a RATE_LIMIT_WINDOW_MS window, per key), so only whoever
 * runs it can lift it. Said when the waits were a noticeable share of the run.
 */
export function rateLimitNote(summary: ReplaySummary): string | undefined {
  if (summary.rateLimitWaitMs < 1000 && summary.retries.rateLimited === 0) return undefined;
  const seconds = (summary.rateLimitWaitMs / 1000).toFixed(1);
  const total = (summary.durationMs / 1000).toFixed(1);
  const limit =
    summary.rateLimit !== null ? ` (the daemon allows ${number(summary.rateLimit)} requests a window per key)` : '';
  return (
    `Waited ${seconds} s of ${total} s for the rate limit${limit}. To go faster, raise ` +
    'RATE_LIMIT_EVENTS_PER_MIN (requests a window) or shorten RATE_LIMIT_WINDOW_MS in the daemon’s ' +
    'environment and restart it; a larger --batch-size (up to 1,000) also sends more events a request.'
  );
}

/** The end of a replay: one JSON object with `--json`, a short summary for people otherwise. */
export function printSummary(io: Io, summary: ReplaySummary, json: boolean, fix?: string): void {
  if (json) printJson(io, summary);
  else {
    const skipped = skippedCount(summary);
    const reasons = Object.entries(summary.skipped)
      .filter(([, n]) => n > 0)
      .map(([reason, n]) => `${reason} ${number(n)}`)
      .join(', ');
    const width = Math.max(...[summary.accepted, skipped, summary.rejected].map((n) => number(n).length));
    const row = (label: string, n: number, extra = '') =>
      printLine(io, `  ${label.padEnd(9)} ${number(n).padStart(width)}${extra}`);
    printLine(
      io,
      `${summary.file}: ${number(summary.lines)} ${agree(summary.lines, 'line', 'lines')}${summary.dryRun ? ' checked (dry run, nothing sent)' : ''} ` +
        `in ${(summary.durationMs / 1000).toFixed(1)} s${summary.resumedFromLine > 0 ? `, resumed after line ${number(summary.resumedFromLine)}` : ''}`,
    );
    if (summary.dryRun) row('valid', summary.lines - summary.rejected);
    else {
      row('accepted', summary.accepted);
      row('skipped', skipped, reasons ? `  (${reasons})` : '');
    }
    row('rejected', summary.rejected, summary.rejectsFile ? `  → ${summary.rejectsFile}` : '');
  }
  const waited = rateLimitNote(summary);
  if (waited) note(io, waited);
  const stopped = summary.stopped;
  if (stopped) {
    if (stopped.statusCode !== null) note(io, `error ${stopped.statusCode}: ${stopped.messages.join('\n  ')}`);
    else if (stopped.reason !== 'interrupted') note(io, `error: ${stopped.message}`);
    if (fix) note(io, fix);
    const done =
      stopped.checkpointLine > 0 ? `lines up to ${number(stopped.checkpointLine)} are done` : 'no line is done yet';
    const verb = stopped.reason === 'interrupted' ? 'Interrupted' : 'Stopped';
    note(
      io,
      `${verb} at line ${number(stopped.line)} (${done}); ` +
        `run the same command with --resume to continue${stopped.reason === 'interrupted' ? '' : ' once the cause is fixed'}.`,
    );
  }
}

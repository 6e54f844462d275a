import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { choice } from '../../options.js';
import { ANALYTICS_GROUPS, ANALYTICS_INTERVALS, ANALYTICS_METRICS } from '../../vocabulary.js';

/** `affiliated analytics`: GET /v1/analytics for the key's campaign, drawn as bars. */
export function registerAnalytics(program: Command, io: Io): void {
  const run = clientCommand(program, io, () => import('./actions.js'));
  withExamples(
    program
      .command('analytics')
      .description('a time series of clicks, page views, leads, sales or money, drawn in the terminal')
      .addOption(choice('--metric <name>', 'what to draw', ANALYTICS_METRICS, 'conversions'))
      .addOption(choice('--interval <unit>', 'one bar per hour, day or month', ANALYTICS_INTERVALS, 'day'))
      .option('--from <date>', 'first local day, YYYY-MM-DD, included (default: 29 days before --to)')
      .option('--to <date>', 'last local day, YYYY-MM-DD, included (default: today)')
      .option('--timezone <zone>', 'IANA time zone whose days cut the series (default: UTC)')
      .addOption(choice('--group-by <what>', 'one bar per group over the whole range instead', ANALYTICS_GROUPS)),
    [
      'analytics --metric clicks --timezone America/Sao_Paulo',
      'analytics --metric revenue --interval month --from 2026-01-01 --to 2026-12-31',
      'analytics --metric clicks --group-by device',
      "analytics --metric leads --json | jq '.totals'",
    ],
    'Counts come from rollups kept as events and clicks arrive (docs/analytics.md); bots’ clicks are bot_clicks.',
  ).action((flags: AnalyticsFlags) => run((a, client, globals) => a.analytics(io, client, globals, flags)));
}

export interface AnalyticsFlags {
  metric: (typeof ANALYTICS_METRICS)[number];
  interval: (typeof ANALYTICS_INTERVALS)[number];
  from?: string;
  to?: string;
  timezone?: string;
  groupBy?: (typeof ANALYTICS_GROUPS)[number];
}

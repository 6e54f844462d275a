import { Command } from 'commander';
import { registerAffiliates } from './commands/affiliates/index.js';
import { registerAudit } from './commands/audit/index.js';
import { registerCampaigns } from './commands/campaigns/index.js';
import { registerConfig } from './commands/config/index.js';
import { registerConversions } from './commands/conversions/index.js';
import { registerDb } from './commands/db/index.js';
import { registerEvents } from './commands/events/index.js';
import { registerGroups } from './commands/groups/index.js';
import { registerInit } from './commands/init/index.js';
import { registerKeys } from './commands/keys/index.js';
import { registerMail } from './commands/mail/index.js';
import { registerPayouts } from './commands/payouts/index.js';
import { registerPlans } from './commands/plans/index.js';
import { registerReport } from './commands/report/index.js';
import { registerAnalytics } from './commands/analytics/index.js';
import { registerRefunds } from './commands/refunds/index.js';
import { registerServe } from './commands/serve/index.js';
import { registerSnippet } from './commands/snippet/index.js';
import { registerWebhooks } from './commands/webhooks/index.js';
import { registerIntegrations } from './commands/integrations/index.js';
import { registerRails } from './commands/rails/index.js';
import { registerCompletion } from './commands/completion/index.js';
import { registerStatus } from './commands/status/index.js';
import { registerUsers } from './commands/users/index.js';
import { commandPath, withExamples } from './help.js';
import type { Io } from './io.js';
import { VERSION } from './version.js';

/** The commander root: global options and every noun. Actions are imported lazily. */
export function buildProgram(io: Io): Command {
  const program = new Command('affiliated')
    .description('Self-hosted affiliate programme backend: the daemon and its command line')
    .version(VERSION, '-v, --version', 'print the version')
    .option('--json', 'machine-readable output on stdout (nothing else there)')
    .option('--profile <name>', 'saved connection profile for client commands (default: "default")')
    .option('--base-url <url>', 'daemon address for client commands (overrides AFFILIATED_BASE_URL and the profile)')
    .option('--api-key <key>', 'API key for client commands (overrides AFFILIATED_API_KEY and the profile)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  program.enablePositionalOptions(false);
  registerServe(program, io);
  registerDb(program, io);
  registerPlans(program, io);
  registerCampaigns(program, io);
  registerKeys(program, io);
  registerUsers(program, io);
  registerMail(program, io);
  registerInit(program, io);
  registerConfig(program, io);
  registerAffiliates(program, io);
  registerGroups(program, io);
  registerEvents(program, io);
  registerWebhooks(program, io);
  registerIntegrations(program, io);
  registerReport(program, io);
  registerAnalytics(program, io);
  registerSnippet(program, io);
  registerConversions(program, io);
  registerRefunds(program, io);
  registerPayouts(program, io);
  registerRails(program, io);
  registerAudit(program, io);
  registerStatus(program, io);
  registerCompletion(program, io);
  withExamples(program, ['init', 'serve', 'affiliates list --status active', 'status']);
  // Sub-commands throw like the root does, so runCli alone turns them into exit codes. A usage
  // error prints its line, commander's "Did you mean", and one line naming the help, not the
  // whole help; every help shows the global options.
  const configure = (command: Command) => {
    command
      .exitOverride()
      .configureOutput(program.configureOutput())
      .configureHelp({ showGlobalOptions: true })
      .showHelpAfterError(`(see \`${commandPath(command)} --help\`)`);
    for (const sub of command.commands) configure(sub);
  };
  configure(program);
  return program;
}

import { loadConfig } from '../../../server/config.js';
import type { Plan } from '../../../shared/schemas/campaign.js';
import { baseUrlOf } from '../../client.js';
import { CommandFailed, Declined, UsageError } from '../../errors.js';
import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, note, printJson, styled, printLine, printRecord } from '../../output.js';
import { activeProfile, maskKey, readConfigFile, saveProfile } from '../../profiles.js';
import { askChoice, askText, confirm } from '../../prompts.js';
import { characters, OPERATOR_LIMITS } from '../../vocabulary.js';
import { checkDaemon } from './check.js';

type InitOptions = GlobalOptions & {
  name?: string;
  id?: string;
  plan?: string;
  force?: boolean;
  baseUrlToSave?: string;
};

/** The plan of a campaign made without --plan. */
const DEFAULT_PLAN = 'unlimited';
/** What plans are for, said when one is chosen. */
const PLANS_ARE_FOR =
  'a plan caps affiliates and conversions a month, for a daemon that runs programmes for several merchants; ' +
  'for your own shop, unlimited';

const limit = (n: number | null, what: string) => (n === null ? `unlimited ${what}` : `${n} ${what}`);
const planLabel = (p: Plan) =>
  `${p.name} (${limit(p.maxAffiliates, 'affiliates')}, ${limit(p.maxMonthlyConversions, 'conversions a month')})`;

/** The daemon's address by its own configuration here: HOST and PORT of the environment and .env. */
function configuredBaseUrl(io: Io): string {
  const config = loadConfig(io.env);
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
}

function campaignNameRule(value: string): true | string {
  const length = characters(value.trim());
  if (length === 0) return 'Give it a name';
  return length <= OPERATOR_LIMITS.campaignName ? true : `At most ${OPERATOR_LIMITS.campaignName} characters`;
}

function checkUrl(value: string): true | string {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? true : 'Start with http:// or https://';
  } catch {
    return 'Give a URL, e.g. http://127.0.0.1:3000';
  }
}

export async function runInit(io: Io, options: InitOptions): Promise<void> {
  const profile = await activeProfile(io, options);
  // An existing profile is never replaced silently, and nothing is created before that is settled.
  const existing = (await readConfigFile(io.env)).profiles[profile];
  if (existing && !options.force) {
    const holds = `${existing.baseUrl ?? 'no base-url'}, api-key ${existing.apiKey ? maskKey(existing.apiKey) : 'not set'}`;
    if (!io.interactive) {
      throw new UsageError(
        `profile "${profile}" exists (${holds}): give --force to replace it, or --profile NAME for a new one`,
      );
    }
    if (!(await confirm(io, '--force', `Profile "${profile}" exists (${holds}). Replace it?`))) {
      throw new Declined('Nothing created: the profile is as it was. Use --profile NAME for a new one.');
    }
  }
  const given = options.baseUrl ?? options.baseUrlToSave;
  const raw =
    given ??
    (io.interactive
      ? await askText(
          io,
          '--base-url',
          'Address of the daemon (as client commands reach it)',
          checkUrl,
          configuredBaseUrl(io),
        )
      : configuredBaseUrl(io));
  if (checkUrl(raw) !== true) throw new UsageError(`--base-url "${raw}": ${checkUrl(raw)}`);
  const baseUrl = baseUrlOf(new URL(raw));

  const result = await withServices(
    io,
    { ...options, create: true },
    async ({ plans: planService, campaigns, apiKeys }) => {
      const name = options.name ?? (await askText(io, '--name', 'Campaign name', campaignNameRule));
      const plans = await planService.list();
      // A self-hosted install is one merchant's own programme: its limits are the plan's
      // business only where one daemon serves several merchants, so unlimited is the default.
      const plan =
        options.plan ??
        (io.interactive
          ? await askChoice(
              io,
              '--plan',
              `Plan (${PLANS_ARE_FOR})`,
              plans.map((p) => ({ name: planLabel(p), value: p.name })),
              DEFAULT_PLAN,
            )
          : DEFAULT_PLAN);
      const campaign = await campaigns.create({ name, plan, publicId: options.id });
      const key = await apiKeys.create({ campaign: campaign.id, name: 'created by affiliated init' });
      return { campaign, key };
    },
  );
  const file = await saveProfile(io.env, profile, { baseUrl, apiKey: result.key.key });
  const check = await checkDaemon(baseUrl, result.key.key, result.campaign.publicId);
  if (options.json) {
    printJson(io, { campaign: result.campaign, key: result.key, profile, baseUrl, configFile: file, check });
  } else {
    printRecord(io, {
      campaign: `${result.campaign.name} (id ${result.campaign.id}, public id ${result.campaign.publicId})`,
      plan: result.campaign.plan,
      profile: `${profile} → ${file}`,
      'base url': baseUrl,
    });
    note(
      io,
      `Plan ${result.campaign.plan}: ${PLANS_ARE_FOR}. Change it with \`affiliated campaigns update ${result.campaign.publicId} --plan NAME\` (\`affiliated plans list\`).`,
    );
    // Shown whole, once: a backend developer copies it into the shop's settings.
    note(io, '\nAPI key (shown once; it is saved in the profile above, store it where your shop needs it):');
    printLine(io, result.key.key);
    const flag = profile === 'default' ? '' : ` --profile ${profile}`;
    if (check.ok) {
      note(io, styled('green', `\n✔ ${check.message}`));
      note(io, `\nNext:\n  npx affiliated${flag} affiliates create --email maria@example.com --name "Maria Silva"`);
      note(io, `  npx affiliated${flag} snippet    # the tracking tag for your site`);
    } else {
      note(io, styled(check.fatal ? 'red' : 'yellow', `\n${check.fatal ? '✖' : '!'} ${check.message}`));
      note(io, `\nNext:\n  npx affiliated serve            # in the folder of this database, if it is not running`);
      note(io, `  npx affiliated${flag} status           # checks the daemon and the key again`);
    }
    note(io, '(`npx affiliated` runs the CLI of this folder; `npm link` puts `affiliated` on your PATH.)');
  }
  if (check.fatal) throw new CommandFailed('the daemon at the saved address does not accept the new key (see above).');
}

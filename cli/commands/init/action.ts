import { loadConfig } from '../../../server/config.js';
import type { Io } from '../../io.js';
import { withServices } from '../../operator.js';
import { type GlobalOptions, note, printJson, printRecord } from '../../output.js';
import { DEFAULT_PROFILE, maskKey, saveProfile } from '../../profiles.js';
import { askChoice, askText } from '../../prompts.js';

export async function runInit(
  io: Io,
  options: GlobalOptions & { name?: string; plan?: string; baseUrlToSave?: string },
): Promise<void> {
  const config = loadConfig();
  const result = await withServices(async ({ plans: planService, campaigns, apiKeys }) => {
    const name =
      options.name ??
      (await askText(io, '--name', 'Campaign name', (v) => (v.trim() ? true : 'Give it a name')));
    const plans = await planService.list();
    const plan =
      options.plan ??
      (await askChoice(
        io,
        '--plan',
        'Plan',
        plans.map((p) => p.name),
        'free',
      ));
    const campaign = await campaigns.create({ name, plan });
    const key = await apiKeys.create({ campaign: campaign.id, name: 'created by affiliated init' });
    return { campaign, key };
  });
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const baseUrl = options.baseUrlToSave ?? `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  const profile = options.profile ?? DEFAULT_PROFILE;
  const file = await saveProfile(io.env, profile, { baseUrl, apiKey: result.key.key });
  if (options.json) {
    return printJson(io, { campaign: result.campaign, key: result.key, profile, baseUrl, configFile: file });
  }
  printRecord(io, {
    campaign: `${result.campaign.name} (id ${result.campaign.id}, public id ${result.campaign.publicId})`,
    plan: result.campaign.plan,
    'api key': maskKey(result.key.key),
    profile: `${profile} → ${file}`,
  });
  note(io, '\nNext: `affiliated serve` in one terminal, then `affiliated affiliates list` in another.');
}

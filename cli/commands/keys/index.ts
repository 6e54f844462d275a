import type { Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { outputOption, text, wholeNumber } from '../../options.js';
import { OPERATOR_LIMITS } from '../../vocabulary.js';

export function registerKeys(program: Command, io: Io): void {
  const keys = withExamples(
    program.command('keys').description('API keys (operator); a key is shown once, at creation'),
    ['keys create --campaign spring-sale --name "shop backend"', 'keys list', 'keys revoke 3'],
  );
  withExamples(
    keys
      .command('create')
      .description('create an API key bound to a campaign')
      .requiredOption('--campaign <id>', 'campaign id or public id')
      .option(
        '--name <name>',
        `a label to recognise the key by, at most ${OPERATOR_LIMITS.keyName} characters`,
        text(OPERATOR_LIMITS.keyName),
      ),
    [
      'keys create --campaign spring-sale --name "shop backend"',
      'keys create --campaign spring-sale --json | jq -r .key',
    ],
  ).action(async (options) => (await import('./actions.js')).create(io, { ...program.opts(), ...options }));
  withExamples(
    outputOption(
      keys
        .command('list')
        .description('list keys (prefix and last four characters only)')
        .option('--campaign <id>', 'only the keys of this campaign (id or public id)'),
    ),
    ['keys list', 'keys list --campaign spring-sale --output csv'],
  ).action(async (options) => (await import('./actions.js')).list(io, { ...program.opts(), ...options }));
  withExamples(
    keys
      .command('revoke')
      .description('revoke a key; it stops working within API_KEY_CACHE_MS')
      .argument('<keyId>', 'the key’s id (see `affiliated keys list`)', wholeNumber(1))
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['keys revoke 3', 'keys revoke 3 --yes   # in a script'],
  ).action(async (keyId: number, options) =>
    (await import('./actions.js')).revoke(io, { ...program.opts(), ...options }, keyId),
  );
}

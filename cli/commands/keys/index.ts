import type { Command } from 'commander';
import type { Io } from '../../io.js';
import { wholeNumber } from '../../options.js';

export function registerKeys(program: Command, io: Io): void {
  const keys = program.command('keys').description('API keys (operator); a key is shown once, at creation');
  keys
    .command('create')
    .description('create an API key bound to a campaign')
    .requiredOption('--campaign <id>', 'campaign id or public id')
    .option('--name <name>', 'a label to recognise the key by')
    .addHelpText(
      'after',
      '\nExample:\n  $ affiliated keys create --campaign spring-sale --name "shop backend" --json',
    )
    .action(async (options) => (await import('./actions.js')).create(io, { ...program.opts(), ...options }));
  keys
    .command('list')
    .description('list keys (prefix and last four characters only)')
    .option('--campaign <id>', 'only the keys of this campaign (id or public id)')
    .action(async (options) => (await import('./actions.js')).list(io, { ...program.opts(), ...options }));
  keys
    .command('revoke')
    .description('revoke a key; it stops working within API_KEY_CACHE_MS')
    .argument('<keyId>', 'the key’s id (see `affiliated keys list`)', wholeNumber(1))
    .action(async (keyId: number) => (await import('./actions.js')).revoke(io, program.opts(), keyId));
}

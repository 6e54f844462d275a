import type { Command } from 'commander';
import { clientCommand } from '../../clientCommand.js';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';
import { decimalNumber, outputOption, pagingOptions, wholeNumber } from '../../options.js';
import { percentOption, productOption, recurringOption } from '../../ruleOptions.js';

/** `--recurring` of a group: a limit, or `campaign` to take the campaign's again. */
const groupRecurring = (value: string) => (value === 'campaign' ? 'campaign' : recurringOption(value));
/** `--second-tier-percent` of a group: a percent, or `campaign`. */
const groupPercent = (value: string) => (value === 'campaign' ? 'campaign' : percentOption(value));

/** The rule options a group's create and update share. */
function ruleOptions<C extends Command>(command: C): C {
  return command
    .option('--commission-percent <x>', 'the group earns this percent of the order value', percentOption)
    .option(
      '--commission-fixed <x>',
      "the group earns this amount per conversion, in the campaign's currency",
      decimalNumber,
    )
    .option(
      '--recurring <limit>',
      "which of a customer's payments earn: lifetime, first, <N>m (N months), or campaign (the campaign's)",
      groupRecurring,
    )
    .option(
      '--second-tier-percent <x>',
      "percent of a child's commission a parent in this group earns, or campaign (the campaign's)",
      groupPercent,
    )
    .option(
      '--product <name=rate>',
      'a product rule, "NAME=PERCENT%" or "NAME=AMOUNT" (the campaign\'s currency); repeat for each',
      productOption,
    );
}

/** Client commands for groups of affiliates and their commission rules (docs/commissions.md#groups). */
export function registerGroups(program: Command, io: Io): void {
  const groups = program.command('groups').description('groups of affiliates and their commission rules');
  const run = clientCommand(program, io, () => import('./actions.js'));
  const id = ['<id>', 'group id', wholeNumber(1)] as const;

  withExamples(
    ruleOptions(
      groups.command('create').description('create a group').requiredOption('--name <name>', 'unique in the campaign'),
    ),
    [
      'groups create --name "Top partners" --commission-percent 15 --recurring 12m',
      'groups create --name Resellers --commission-fixed 25 --product "Team plan=20%" --second-tier-percent 5',
    ],
    'Give the group its rate with --commission-percent or --commission-fixed. Its affiliates earn by it from their\n' +
      'next conversion on (affiliates update ID --group ID).',
  ).action((flags) => run((a, client, globals) => a.create(io, client, globals, flags)));
  withExamples(
    outputOption(pagingOptions(groups.command('list').description('list groups and their rules, newest first'))),
    ['groups list', 'groups list --output csv'],
  ).action((flags) => run((a, client, globals) => a.list(io, client, globals, flags)));
  withExamples(
    groups
      .command('get')
      .description('show one group and its rule')
      .argument(...id),
    ['groups get 3', 'groups get 3 --json'],
  ).action((groupId: number) => run((a, client, globals) => a.get(io, client, globals, groupId)));
  withExamples(
    ruleOptions(
      groups
        .command('update')
        .description("change a group's name or rule; what is not given stays as it is")
        .argument(...id)
        .option('--name <name>', 'new name'),
    ).option('--no-products', 'remove every product rule of the group'),
    ['groups update 3 --commission-percent 17.5', 'groups update 3 --recurring campaign --no-products'],
    'Stored conversions keep their commission; the new rule applies to those that arrive afterwards.',
  ).action((groupId: number, flags) => run((a, client, globals) => a.update(io, client, globals, groupId, flags)));
  withExamples(
    groups
      .command('delete')
      .description("delete a group: its affiliates earn by the campaign's rule again")
      .argument(...id)
      .option('--yes', 'do not ask for confirmation (required when not on a terminal)'),
    ['groups delete 3', 'groups delete 3 --yes   # in a script'],
  ).action((groupId: number, flags) => run((a, client, globals) => a.remove(io, client, globals, groupId, flags)));
}

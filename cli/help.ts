import type { Command } from 'commander';

/**
 * Every command ends its help with examples a person can copy (gh, stripe). Each line is a
 * command line after `affiliated`; a `# comment` may follow.
 */
export function withExamples<C extends Command>(command: C, examples: readonly string[], note?: string): C {
  // `NAME=value ... rest`: the variables go before the program name.
  const lines = examples.map((example) => {
    const env = /^((?:[A-Z_]+=\S+ )*)(.*)$/.exec(example);
    return `  $ ${env?.[1] ?? ''}affiliated ${env?.[2] ?? example}`;
  });
  command.addHelpText('after', `${note ? `\n${note}\n` : ''}\nExamples:\n${lines.join('\n')}`);
  return command;
}

/** `affiliated campaigns create`: the words a person types to reach this command. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

import { Argument, type Command } from 'commander';
import { withExamples } from '../../help.js';
import type { Io } from '../../io.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** `affiliated completion SHELL`: a script that completes commands, options and fixed values. */
export function registerCompletion(program: Command, io: Io): void {
  withExamples(
    program
      .command('completion')
      .description('print a shell completion script (commands, options and their fixed values)')
      .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS)),
    [
      'completion bash > ~/.local/share/bash-completion/completions/affiliated',
      "completion zsh >> ~/.zshrc.affiliated && echo 'source ~/.zshrc.affiliated' >> ~/.zshrc",
      'completion fish > ~/.config/fish/completions/affiliated.fish',
    ],
    'For this shell only: source <(npx affiliated completion bash)',
  ).action(async (shell: (typeof SHELLS)[number]) => {
    const { completionScript } = await import('./script.js');
    io.stdout.write(completionScript(program, shell));
  });
}

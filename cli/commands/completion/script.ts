import type { Command, Option } from 'commander';

interface Node {
  path: string;
  subcommands: string[];
  /** Long (and short) flags, with the fixed values of those that have them. */
  options: Array<{ flags: string[]; takesValue: boolean; choices: readonly string[] }>;
}

/** Every command of the tree, with the options it accepts (its own, then the global ones). */
function walk(program: Command): Node[] {
  const globals = program.options.filter((o) => !o.hidden);
  const nodes: Node[] = [];
  const visit = (command: Command, path: string[]) => {
    const own = command === program ? [] : command.options.filter((o) => !o.hidden);
    const options = [...own, ...globals, ...helpOption(command)].map((o: Option) => ({
      flags: [o.long, o.short].filter((f): f is string => Boolean(f)),
      takesValue: o.required || o.optional,
      choices: o.argChoices ?? [],
    }));
    const subcommands = command.commands.map((c) => c.name());
    if (command === program) subcommands.push('help');
    nodes.push({ path: path.join(' '), subcommands, options });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return nodes;
}

const helpOption = (_command: Command) => [{ long: '--help', short: '-h', required: false, optional: false } as Option];

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(nodes: Node[]): string {
  const subs = nodes.map((n) => `    ${quote(n.path)}) echo ${quote(n.subcommands.join(' '))} ;;`);
  const opts = nodes.map((n) => `    ${quote(n.path)}) echo ${quote(n.options.flatMap((o) => o.flags).join(' '))} ;;`);
  const values = nodes.flatMap((n) =>
    n.options
      .filter((o) => o.takesValue)
      .flatMap((o) =>
        o.flags.map(
          (flag) => `    ${quote(`${n.path}|${flag}`)}) echo ${quote(o.choices.join(' ') || '__value__')} ;;`,
        ),
      ),
  );
  return `# affiliated completion for bash (also zsh through bashcompinit)
_affiliated_subs() {
  case "$1" in
${subs.join('\n')}
  esac
}
_affiliated_opts() {
  case "$1" in
${opts.join('\n')}
  esac
}
_affiliated_values() {
  case "$1" in
${values.join('\n')}
    *) echo __none__ ;;
  esac
}
_affiliated() {
  local cur prev path word i values
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev=""
  [ "$COMP_CWORD" -gt 0 ] && prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    case " $(_affiliated_subs "$path") " in
      *" $word "*) path="\${path:+$path }$word" ;;
    esac
  done
  values="$(_affiliated_values "$path|$prev")"
  if [ "$values" = "__value__" ]; then
    COMPREPLY=($(compgen -f -- "$cur"))
    return
  fi
  if [ "$values" != "__none__" ]; then
    COMPREPLY=($(compgen -W "$values" -- "$cur"))
    return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_affiliated_opts "$path")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_affiliated_subs "$path")" -- "$cur"))
  fi
}
complete -F _affiliated affiliated
`;
}

function zsh(nodes: Node[]): string {
  return `# affiliated completion for zsh (source it from ~/.zshrc): the bash completion through bashcompinit.
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }
autoload -U +X bashcompinit && bashcompinit
${bash(nodes)}`;
}

function fish(nodes: Node[]): string {
  const lines = [
    '# affiliated completion for fish',
    'function __affiliated_path',
    '    set -l words (commandline -opc)',
    '    set -l path',
    '    for word in $words[2..-1]',
    '        if contains -- $word (__affiliated_subs (string join " " $path))',
    '            set path $path $word',
    '        end',
    '    end',
    '    string join " " $path',
    'end',
    'function __affiliated_subs',
    '    switch "$argv[1]"',
    ...nodes.map(
      (n) => `        case ${quote(n.path)}\n            printf "%s\\n" ${n.subcommands.map(quote).join(' ')}`,
    ),
    '    end',
    'end',
    'function __affiliated_at',
    '    set -l path (__affiliated_path)',
    '    test "$path" = "$argv[1]"',
    'end',
    'complete -c affiliated -f',
  ];
  for (const n of nodes) {
    const at = `-n ${quote(`__affiliated_at ${quote(n.path)}`)}`;
    if (n.subcommands.length > 0) lines.push(`complete -c affiliated ${at} -a ${quote(n.subcommands.join(' '))}`);
    for (const o of n.options) {
      const long = o.flags.find((f) => f.startsWith('--'))?.slice(2);
      const short = o.flags.find((f) => !f.startsWith('--'))?.slice(1);
      const parts = [`complete -c affiliated ${at}`];
      if (long) parts.push(`-l ${long}`);
      if (short) parts.push(`-s ${short}`);
      if (o.choices.length > 0) parts.push(`-x -a ${quote(o.choices.join(' '))}`);
      else if (o.takesValue) parts.push('-r');
      lines.push(parts.join(' '));
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(program: Command, shell: 'bash' | 'zsh' | 'fish'): string {
  const nodes = walk(program);
  if (shell === 'bash') return bash(nodes);
  if (shell === 'zsh') return zsh(nodes);
  return fish(nodes);
}

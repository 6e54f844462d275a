import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { CLI } from './cli.js';

/**
 * The built CLI on a real terminal: a tmux pane, so prompts render and keys are typed as a
 * person types them. Each terminal has its own tmux server (socket), killed at the end.
 */
export interface Terminal {
  /** Waits until the screen shows `text` (or the pattern), and returns the screen. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  type(text: string): void;
  press(...keys: string[]): void;
  screen(): string;
  /** Waits for the command to end; its exit code. */
  exitCode(timeoutMs?: number): Promise<number>;
  close(): void;
}

let count = 0;

export function openTerminal(
  args: string[],
  options: { env: Record<string, string | undefined>; cwd: string; dir: string },
): Terminal {
  count++;
  const socket = `affiliated-test-${process.pid}-${count}`;
  const script = path.join(options.dir, `terminal-${count}.sh`);
  const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
  const exports = Object.entries(options.env)
    .map(([name, value]) => (value === undefined ? `unset ${name}` : `export ${name}=${quote(value)}`))
    .join('\n');
  writeFileSync(
    script,
    `unset CI NODE_OPTIONS NO_COLOR\nexport TERM=xterm-256color\n${exports}\ncd ${quote(options.cwd)}\n` +
      `${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(' ')}\necho "[exit $?]"\nsleep 600\n`,
  );
  const tmux = (...rest: string[]) => execFileSync('tmux', ['-L', socket, ...rest], { encoding: 'utf8' });
  tmux('new-session', '-d', '-s', 'cli', '-x', '160', '-y', '50', `sh ${quote(script)}`);
  const screen = () => tmux('capture-pane', '-p', '-J', '-t', 'cli', '-S', '-200');
  const waitFor = async (text: string | RegExp, timeoutMs = 20000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const shown = screen();
      if (typeof text === 'string' ? shown.includes(text) : text.test(shown)) return shown;
      if (Date.now() > until) throw new Error(`the terminal never showed ${String(text)}; it shows:\n${shown}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    waitFor,
    screen,
    type: (text) => tmux('send-keys', '-t', 'cli', '-l', text),
    press: (...keys) => tmux('send-keys', '-t', 'cli', ...keys),
    exitCode: async (timeoutMs) => Number(/\[exit (\d+)\]/.exec(await waitFor(/\[exit \d+\]/, timeoutMs))?.[1]),
    close: () => {
      try {
        tmux('kill-server');
      } catch {
        // already gone
      }
    },
  };
}

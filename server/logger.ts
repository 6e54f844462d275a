export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';
const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 };

export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * One JSON line per entry on stderr. Callers pass only fields that are safe to keep:
 * never a key, a password, a hash, a request body or SQL.
 */
export function createLogger(level: LogLevel, write: (line: string) => void = toStderr): Logger {
  const at =
    (name: Exclude<LogLevel, 'silent'>) =>
    (msg: string, fields: Record<string, unknown> = {}) => {
      if (RANK[name] > RANK[level]) return;
      write(`${JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields })}\n`);
      // A warning or an error goes out at once, with whatever came before it.
      if (RANK[name] <= RANK.warn) flushStderr();
    };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') };
}

/**
 * Lines for stderr are written once per turn of the event loop rather than one write each:
 * Node writes stderr synchronously when it is a file or a terminal, and a system call per
 * request was 3 to 7 % of a request's CPU (docs/benchmarks.md). The process's exit flushes.
 */
let pending = '';
let scheduled = false;

function toStderr(line: string): void {
  pending += line;
  if (scheduled) return;
  scheduled = true;
  setImmediate(flushStderr);
}

function flushStderr(): void {
  scheduled = false;
  if (!pending) return;
  const text = pending;
  pending = '';
  process.stderr.write(text);
}

process.on('exit', flushStderr);

/** The frames of an error's stack without its message line, which for a SQL error holds the SQL. */
export function safeStack(err: unknown): string | undefined {
  if (!(err instanceof Error) || !err.stack) return undefined;
  return err.stack
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at '))
    .slice(0, 15)
    .join('\n');
}

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

/**
 * Where a fault was thrown: the innermost frame of our own code when the stack holds one (a
 * driver's frames say little), else its first frame (mysql2 builds its errors in a socket
 * callback, whose stack is the driver's alone), as `function (file:line:column)`. One frame,
 * never the stack trace, and never the message line, which for a SQL error holds the SQL.
 */
export function errorSite(err: unknown): string | undefined {
  if (!(err instanceof Error) || !err.stack) return undefined;
  const frames = err.stack
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '));
  // A frame with a file and a line (not `async Promise.all (index 0)`), outside dependencies and Node.
  const located = frames.filter((frame) => /:\d+:\d+\)?$/.test(frame) && !/node_modules|\(node:|at node:/.test(frame));
  return (located[0] ?? frames[0])?.slice(3);
}

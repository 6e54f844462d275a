import type { Ora } from 'ora';
import type { Io } from './io.js';

export interface GlobalOptions {
  json?: boolean;
  profile?: string;
  baseUrl?: string;
  apiKey?: string;
}

/** `--json`: only JSON on stdout, one document, nothing else there. */
export function printJson(io: Io, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printLine(io: Io, text = ''): void {
  io.stdout.write(`${text}\n`);
}

/** Notes for people: stderr, so stdout stays clean for pipes. */
export function note(io: Io, text: string): void {
  io.stderr.write(`${text}\n`);
}

type Cell = string | number | boolean | null | undefined;

export function printTable(io: Io, columns: string[], rows: Cell[][]): void {
  const text = rows.map((row) =>
    row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))),
  );
  const widths = columns.map((title, i) =>
    Math.max(title.length, ...text.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  printLine(io, line(columns.map((c) => c.toUpperCase())));
  for (const row of text) printLine(io, line(row));
  if (rows.length === 0) note(io, '(none)');
}

/** `key: value` lines for one record. */
export function printRecord(io: Io, record: Record<string, Cell>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) {
    printLine(
      io,
      `${`${key}:`.padEnd(width + 1)} ${value === null || value === undefined ? '-' : String(value)}`,
    );
  }
}

/** Spinners go to stderr and only on a terminal; elsewhere they do nothing. */
export async function withSpinner<T>(io: Io, text: string, work: () => Promise<T>): Promise<T> {
  if (!io.stderr.isTTY) return work();
  const { default: ora } = await import('ora');
  const spinner: Ora = ora({ text, stream: io.stderr }).start();
  try {
    const result = await work();
    spinner.stop();
    return result;
  } catch (err) {
    spinner.stop();
    throw err;
  }
}

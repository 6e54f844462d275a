import { styleText } from 'node:util';
import type { Ora } from 'ora';
import { csvLines } from './csv.js';
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

/** The note under one page of a list: `page 2 of 5 (230 payouts)`. */
export function pageNote(io: Io, page: { page: number; totalPages: number }, count: string): void {
  note(io, `page ${page.page} of ${Math.max(page.totalPages, 1)} (${count})`);
}

type Cell = string | number | boolean | null | undefined;

/** `--output` of list commands: a table for people, or CSV for spreadsheets and scripts. */
export const LIST_FORMATS = ['table', 'csv'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** "1 affiliate", "2 affiliates", "0 affiliates". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Colour only on a terminal, and never when NO_COLOR is set (no-color.org) or TERM is dumb.
 * Node's own util.styleText, so no dependency.
 */
export function paint(
  io: Io,
  stream: 'stdout' | 'stderr',
  style: 'bold' | 'red' | 'green' | 'yellow' | 'dim' | 'cyan',
  text: string,
): string {
  const env = io.env;
  if (!io[stream].isTTY || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb') {
    return text;
  }
  // We decided above, for the stream we write to; styleText would look at process.stdout.
  const style3 = styleText as (format: string, text: string, options: { validateStream: boolean }) => string;
  return style3(style, text, { validateStream: false });
}

export function printTable(io: Io, columns: string[], rows: Cell[][], format: ListFormat = 'table'): void {
  if (format === 'csv') {
    io.stdout.write(csvLines(columns, rows));
    return;
  }
  const text = rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))));
  const widths = columns.map((title, i) => Math.max(title.length, ...text.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  printLine(io, paint(io, 'stdout', 'bold', line(columns.map((c) => c.toUpperCase()))));
  for (const row of text) printLine(io, line(row));
  if (rows.length === 0) note(io, '(none)');
}

/** `key: value` lines for one record. */
export function printRecord(io: Io, record: Record<string, Cell>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) {
    printLine(io, `${`${key}:`.padEnd(width + 1)} ${value === null || value === undefined ? '-' : String(value)}`);
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

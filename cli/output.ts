import { styleText } from 'node:util';
import type { Ora } from 'ora';
import { csvLines } from '../shared/csv.js';
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

/** Bidirectional overrides and isolates: they reorder what follows them on screen. */
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;

/**
 * Text from elsewhere (an affiliate's name, a server's message) made safe to print on a terminal:
 * its control characters are shown, never obeyed, so a name holding ESC sequences cannot
 * retitle, clear or recolour the terminal (as gh's asciisanitizer does). C0 characters are
 * shown in caret notation (ESC `^[`, BEL `^G`, CR `^M`), DEL as `^?`, C1 characters as `^[`
 * and their 7-bit form (CSI U+009B `^[[`), bidirectional overrides as `<U+202E>`.
 * `lines` keeps line feeds and tabs (free text of several lines); `cell` shows them too
 * (`^J`, `^I`), so a value stays on its line of a table or record.
 * Every human writer below calls it; `--json` and CSV keep the data exact.
 */
export function visible(text: string, keep: 'lines' | 'cell' = 'lines'): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x20) {
      out += keep === 'lines' && (char === '\n' || char === '\t') ? char : `^${String.fromCharCode(code + 0x40)}`;
    } else if (code === 0x7f) out += '^?';
    else if (code >= 0x80 && code <= 0x9f) out += `^[${String.fromCharCode(code - 0x40)}`;
    else if (BIDI.test(char)) out += `<U+${code.toString(16).toUpperCase()}>`;
    else out += char;
  }
  return out;
}

type Style = 'bold' | 'red' | 'green' | 'yellow' | 'dim' | 'cyan';

/** A part of a line to colour: the writer escapes its text first, then colours it (on a terminal). */
export interface Styled {
  style: Style;
  text: string;
}
export const styled = (style: Style, text: string): Styled => ({ style, text });

/** What the writers take: plain text, or parts of it coloured. */
export type Text = string | Styled | ReadonlyArray<string | Styled>;

/**
 * Colour only on a terminal, and never when NO_COLOR is set (no-color.org) or TERM is dumb.
 * Node's own util.styleText, so no dependency.
 */
function paint(io: Io, stream: 'stdout' | 'stderr', style: Style, text: string): string {
  const env = io.env;
  if (!io[stream].isTTY || (env.NO_COLOR !== undefined && env.NO_COLOR !== '') || env.TERM === 'dumb') {
    return text;
  }
  // We decided above, for the stream we write to; styleText would look at process.stdout.
  const style3 = styleText as (format: string, text: string, options: { validateStream: boolean }) => string;
  return style3(style, text, { validateStream: false });
}

/** The bytes a human writer puts on a stream: every part escaped, then coloured. */
function render(io: Io, stream: 'stdout' | 'stderr', text: Text): string {
  const parts: ReadonlyArray<string | Styled> = typeof text === 'string' || 'style' in text ? [text] : text;
  return parts
    .map((part) => (typeof part === 'string' ? visible(part) : paint(io, stream, part.style, visible(part.text))))
    .join('');
}

export function printLine(io: Io, text: Text = ''): void {
  io.stdout.write(`${render(io, 'stdout', text)}\n`);
}

/** Notes for people: stderr, so stdout stays clean for pipes. */
export function note(io: Io, text: Text): void {
  io.stderr.write(`${render(io, 'stderr', text)}\n`);
}

/**
 * After printing the URL a provider must call (a billing integration, a payout rail's callback):
 * a loopback address is one the provider cannot reach.
 */
export function noteIfLoopback(io: Io, url: string): void {
  if (/^https?:\/\/(127\.|localhost|\[::1\])/.test(url)) {
    note(io, 'That address is this machine’s: pass --public-url with the address the provider can reach.');
  }
}

/** Whole numbers as people read them: `4,979`. */
export const count = (n: number): string => n.toLocaleString('en-US');

/**
 * The note under one page of a list: `page 2 of 5 (230 payouts)`; with `all`, a list that has
 * more pages names the flag that reads them all.
 */
export function pageNote(io: Io, page: { page: number; totalPages: number }, what: string, all = false): void {
  const more = all && page.totalPages > 1 ? '; --all for every page' : '';
  note(io, `page ${count(page.page)} of ${count(Math.max(page.totalPages, 1))} (${what}${more})`);
}

type Cell = string | number | boolean | null | undefined;

/** `--output` of list commands: a table for people, or CSV for spreadsheets and scripts. */
export const LIST_FORMATS = ['table', 'csv'] as const;
export type ListFormat = (typeof LIST_FORMATS)[number];

/** "1 affiliate", "2 affiliates", "0 affiliates", "4,979 conversions". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}

/** A verb that agrees with a count: `its ${plural(n, 'conversion')} ${agree(n, 'is', 'are')} paid`. */
export const agree = (n: number, one: string, many: string): string => (n === 1 ? one : many);

export function printTable(io: Io, columns: string[], rows: Cell[][], format: ListFormat = 'table'): void {
  if (format === 'csv') {
    io.stdout.write(csvLines(columns, rows));
    return;
  }
  const text = rows.map((row) =>
    row.map((cell) => (cell === null || cell === undefined ? '-' : visible(String(cell), 'cell'))),
  );
  const widths = columns.map((title, i) => Math.max(title.length, ...text.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  printLine(io, styled('bold', line(columns.map((c) => c.toUpperCase()))));
  for (const row of text) io.stdout.write(`${line(row)}\n`);
  if (rows.length === 0) note(io, '(none)');
}

/** `key: value` lines for one record. */
export function printRecord(io: Io, record: Record<string, Cell>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) {
    const shown = value === null || value === undefined ? '-' : visible(String(value), 'cell');
    io.stdout.write(`${`${key}:`.padEnd(width + 1)} ${shown}\n`);
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

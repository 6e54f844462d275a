/**
 * The one CSV writer: the CLI's (`--output csv` on list commands, `payouts export`) and the dashboard's payouts export.
 *
 * RFC 4180: a field with a comma, a quote or a line break is quoted, quotes doubled; lines end
 * in CRLF. A text field that a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR
 * first) gets a leading `'` (OWASP's CSV-injection advice): names and e-mails come from
 * affiliates. Numbers are written as given, so a negative amount stays a number.
 */
export type CsvCell = string | number | boolean | null | undefined;

export function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A whole file: the header, then one line a row. */
export function csvLines(header: readonly string[], rows: readonly CsvCell[][]): string {
  return [header, ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

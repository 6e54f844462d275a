import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { trackingEventSchema } from '../../../../shared/schemas/event.js';
import { parseWith } from '../../../../shared/schemas/validation.js';

export interface RawLine {
  /** Physical line number, from 1, counting blank lines, as an editor shows it. */
  line: number;
  text: string;
  /** Bytes of the line and its line break, for progress against the file size. */
  bytes: number;
}

/**
 * The file, one line at a time. readline's async iterator pauses the file stream while lines
 * wait to be consumed, so memory stays flat however large the file is.
 */
export async function* readLines(file: string): AsyncGenerator<RawLine> {
  const input = createReadStream(file);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      yield {
        line,
        text: line === 1 ? text.replace(/^\uFEFF/, '') : text,
        bytes: Buffer.byteLength(text) + 1,
      };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

export const NOT_JSON = 'line is not valid JSON';
export const NOT_OBJECT = 'line must be a JSON object';

/**
 * A stable `event_id` for a line that has none: a hash of its line number and its text. It
 * survives a re-run, a resume, a rename or a copy of the file; a line edited in place becomes
 * a new event (it was refused before, or it now says something else), the others keep theirs.
 */
export function deriveEventId(line: number, text: string): string {
  const digest = createHash('sha256').update(`${line}\n${text.trim()}`).digest('base64url');
  return `replay_${digest}`;
}

export type JudgedLine =
  | { kind: 'blank' }
  | { kind: 'event'; event: Record<string, unknown> }
  | { kind: 'rejected'; reasons: string[] };

/** One line against the server's own schema (issue 5: the same zod schemas as the server). */
export function judgeLine(line: number, text: string): JudgedLine {
  if (text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'rejected', reasons: [NOT_JSON] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'rejected', reasons: [NOT_OBJECT] };
  }
  const checked = parseWith(trackingEventSchema, value);
  if (!checked.ok) return { kind: 'rejected', reasons: checked.messages };
  // The line is sent as written (not as zod re-shaped it), plus an id that makes it idempotent.
  const event = value as Record<string, unknown>;
  if (event.event_id === undefined) event.event_id = deriveEventId(line, text);
  return { kind: 'event', event };
}

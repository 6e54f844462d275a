import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { campaignMismatch, trackingEventSchema } from '../../../../shared/schemas/event.js';
import { parseWith } from '../../../../shared/schemas/validation.js';

export interface RawLine {
  /** Physical line number, from 1, counting blank lines, as an editor shows it. */
  line: number;
  text: string;
  /** Byte offset just past this line and its line break: where a resume starts reading. */
  end: number;
}

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * The file, one line at a time, with exact byte offsets (CRLF and multi-byte text included), so
 * a checkpoint can name the byte a resume starts at and fingerprint what came before it. The
 * stream is pulled, so at most one read buffer (64 KiB) and the current line are held.
 */
export async function* readLines(file: string, fromByte = 0, fromLine = 0): AsyncGenerator<RawLine> {
  const input = createReadStream(file, { start: fromByte, highWaterMark: 64 * 1024 });
  let line = fromLine;
  let offset = fromByte;
  let carry: Buffer | undefined;
  const text = (bytes: Buffer) => {
    const end = bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.length - 1 : bytes.length;
    const value = bytes.toString('utf8', 0, end);
    return line === 1 ? value.replace(/^\uFEFF/, '') : value;
  };
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let start = 0;
      for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, start)) {
        const piece = carry ? Buffer.concat([carry, chunk.subarray(start, at)]) : chunk.subarray(start, at);
        carry = undefined;
        line++;
        offset += piece.length + 1;
        yield { line, text: text(piece), end: offset };
        start = at + 1;
      }
      if (start < chunk.length) {
        const rest = chunk.subarray(start);
        carry = carry ? Buffer.concat([carry, rest]) : Buffer.from(rest);
      }
    }
    if (carry && carry.length > 0) {
      line++;
      offset += carry.length;
      yield { line, text: text(carry), end: offset };
    }
  } finally {
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
  { kind: 'blank' } | { kind: 'event'; event: Record<string, unknown> } | { kind: 'rejected'; reasons: string[] };

/**
 * One line against the server's own schema (the same zod schemas as the server) and, when the
 * key's campaign is known, against the one rule only the server could otherwise check: a
 * `campaign_id` of another campaign. A batch holding such a line would be refused whole and
 * sent again without it, nearly doubling the requests of a file with many of them.
 */
export function judgeLine(line: number, text: string, campaign?: string): JudgedLine {
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
  if (campaign !== undefined && checked.data.campaign_id !== campaign) {
    // The server's own words, so a line refused here reads as if the daemon had refused it.
    return { kind: 'rejected', reasons: [`campaign_id ${campaignMismatch(campaign)}`] };
  }
  // The line is sent as written (not as zod re-shaped it), plus an id that makes it idempotent.
  const event = value as Record<string, unknown>;
  if (event.event_id === undefined) event.event_id = deriveEventId(line, text);
  return { kind: 'event', event };
}

import { createHash } from 'node:crypto';
import { campaignMismatch, trackingEventSchema } from '../../../../shared/schemas/event.js';
import { parseWith } from '../../../../shared/schemas/validation.js';

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
  /** `json`: the line's own text, with an `event_id` written in when it had none. */
  | { kind: 'event'; json: string }
  | { kind: 'rejected'; reasons: string[] };

export interface JudgeOptions {
  /** The key's campaign, when the daemon said it. */
  campaign?: string;
  /** Check the whole event schema here (a dry run, which has no daemon to ask). */
  schema?: boolean;
}

/** JSON's own whitespace, then the end of an object: `{` was followed by nothing else. */
const CLOSES_AT_ONCE = /[ \t\r\n]*\}/y;

/**
 * The line's text with `"event_id":"…"` written in as the first member. The line parsed as an
 * object, so before its first `{` there is only JSON whitespace, and that `{` opens it.
 */
export function withEventId(text: string, eventId: string): string {
  const open = text.indexOf('{') + 1;
  CLOSES_AT_ONCE.lastIndex = open;
  const comma = CLOSES_AT_ONCE.test(text) ? '' : ',';
  return `${text.slice(0, open)}"event_id":${JSON.stringify(eventId)}${comma}${text.slice(open)}`;
}

/**
 * What the replay judges itself, before a line is sent. A sent batch is refused whole (400) when
 * any event in it breaks a rule, so what is cheap to know here is judged here:
 *
 * - a line that is not JSON, or not an object: the daemon could only refuse the batch without
 *   naming the line (its body would not parse), and the batch would be split to find it;
 * - a `campaign_id` naming another campaign than the key's (when the daemon said which), with
 *   the daemon's own words: a file replayed with the wrong key would otherwise have every batch
 *   refused and sent again.
 *
 * Everything else in the event schema is the daemon's to judge: it validates every event anyway,
 * names each one it refuses by its index, and the replay sends the rest again and writes those
 * lines to the rejects file with the daemon's reasons. The line is sent as written, not parsed
 * and written again. A dry run (`schema`) has no daemon, so it checks the schema here with the
 * daemon's own zod schemas and messages.
 */
export function judgeLine(line: number, text: string, options: JudgeOptions = {}): JudgedLine {
  const judged = judge(line, text, options);
  return judged.kind === 'event' ? { kind: 'event', json: judged.json } : judged;
}

/** What a line becomes, as `judgeLine` says, and for an event whether it is a conversion. */
export type JudgedEvent = Exclude<JudgedLine, { kind: 'event' }> | { kind: 'event'; json: string; conversion: boolean };

/**
 * `judgeLine`, with what the batch keeps of an event beside its text: whether the monthly
 * conversion limit counts it (a batch refused by that limit sends the events that fit).
 */
export function judge(line: number, text: string, options: JudgeOptions = {}): JudgedEvent {
  // Nearly every line starts with its `{`: the blank test then costs nothing.
  if (text.charCodeAt(0) !== 0x7b && text.trim() === '') return { kind: 'blank' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: 'rejected', reasons: [NOT_JSON] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'rejected', reasons: [NOT_OBJECT] };
  }
  if (options.schema) {
    const checked = parseWith(trackingEventSchema, value);
    if (!checked.ok) return { kind: 'rejected', reasons: checked.messages };
  }
  const event = value as Record<string, unknown>;
  const campaign = event.campaign_id;
  // The daemon's own test for a campaign it names as another one: a string the schema accepts
  // (1 to 64 characters). Any other value gets the schema's message from the daemon.
  if (
    options.campaign !== undefined &&
    typeof campaign === 'string' &&
    campaign.length >= 1 &&
    campaign.length <= 64 &&
    campaign !== options.campaign
  ) {
    return { kind: 'rejected', reasons: [`campaign_id ${campaignMismatch(options.campaign)}`] };
  }
  // An id makes the line idempotent: a re-run or a resume stores nothing twice.
  const json = event.event_id === undefined ? withEventId(text, deriveEventId(line, text)) : text;
  return { kind: 'event', json, conversion: event.event_type === 'conversion' };
}

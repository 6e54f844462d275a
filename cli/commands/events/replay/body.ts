/** Well under the daemon's 2 MiB body limit (spec §10.6), so a batch of large events still fits. */
export const MAX_BATCH_BODY_BYTES = 1024 * 1024;

const HEAD = Buffer.from('{"batch":true,"events":[');
const TAIL = Buffer.from(']}');
const COMMA = 0x2c;
/** A pooled buffer holds any batch of several events: they are cut at MAX_BATCH_BODY_BYTES. */
const POOLED_BYTES = MAX_BATCH_BODY_BYTES + HEAD.length + TAIL.length;

/**
 * Per event, in a batch's index: its line number, where its JSON starts and ends, the id bytes
 * written in, the file offset its line starts at (a stop inside the batch checkpoints there; a
 * double holds any file size), and 1 for a conversion (what the monthly limit counts).
 */
const FIELDS = 6;
const [LINE, START, END, ADDED, FROM, CONVERSION] = [0, 1, 2, 3, 4, 5];

/** What a batch is written into: the body's bytes, and an index of its events. */
interface Slot {
  bytes: Buffer;
  index: Float64Array;
}

/**
 * The buffers batches are written into, used again once a batch is recorded. The sending loop
 * bounds how many batches are alive at once, so the pool never holds more buffers than that, and
 * the replay's memory does not wait on the garbage collector to free what it is done with. Both
 * live outside the JavaScript heap: a batch waiting for its answer adds next to nothing to what
 * the collector copies and promotes, which is what makes V8 grow its heap.
 */
export class BodyPool {
  private readonly free: Slot[] = [];

  /** `maxEvents`: the batch size, so an index never has to grow. */
  constructor(private readonly maxEvents = 1000) {}

  take(): Slot {
    return (
      this.free.pop() ?? {
        bytes: Buffer.allocUnsafeSlow(POOLED_BYTES),
        index: new Float64Array(this.maxEvents * FIELDS),
      }
    );
  }

  give(slot: Slot): void {
    // A single event larger than a pooled buffer had one of its own, which is let go.
    if (slot.bytes.length === POOLED_BYTES && slot.index.length === this.maxEvents * FIELDS) this.free.push(slot);
  }
}

/**
 * A batch's events, written one after another into one buffer as the body of `POST /v1/events`
 * (`{"batch":true,"events":[…]}`): each is the line's own JSON text, not parsed and written
 * again. Beside it, an index of numbers says for each event its line and where it lies.
 */
export class BatchEvents {
  private slot: Slot;
  /** Bytes written: the head, the events and the commas between them. */
  private length = HEAD.length;
  private events = 0;

  constructor(private readonly pool: BodyPool) {
    this.slot = pool.take();
    HEAD.copy(this.slot.bytes, 0);
  }

  get count(): number {
    return this.events;
  }

  /** The size of the whole body as it stands. */
  get bodyBytes(): number {
    return this.length + TAIL.length;
  }

  /**
   * Appends an event: its JSON text, how many bytes of it are an `event_id` written in, where its
   * line starts in the file, and whether it is a conversion.
   */
  add(line: number, json: string, addedBytes: number, from = 0, conversion = false): void {
    const comma = this.events > 0 ? 1 : 0;
    // A UTF-16 code unit takes at most 3 bytes in UTF-8: measure only when it might not fit.
    if (this.length + comma + json.length * 3 + TAIL.length > this.slot.bytes.length) {
      this.reserve(comma + Buffer.byteLength(json));
    }
    if ((this.events + 1) * FIELDS > this.slot.index.length) this.growIndex();
    const { bytes, index } = this.slot;
    if (comma) bytes[this.length++] = COMMA;
    const at = this.events * FIELDS;
    index[at + LINE] = line;
    index[at + START] = this.length;
    this.length += bytes.write(json, this.length, 'utf8');
    index[at + END] = this.length;
    index[at + ADDED] = addedBytes;
    index[at + FROM] = from;
    index[at + CONVERSION] = conversion ? 1 : 0;
    this.events++;
  }

  lineOf(event: number): number {
    return this.field(event, LINE);
  }

  /** The file offset the event's line starts at. */
  fromOf(event: number): number {
    return this.field(event, FROM);
  }

  isConversion(event: number): boolean {
    return this.field(event, CONVERSION) === 1;
  }

  /** The request body: every event (the buffer itself, no copy), or those at `events` (a copy). */
  body(events?: readonly number[]): Uint8Array {
    const { bytes } = this.slot;
    if (!events) {
      TAIL.copy(bytes, this.length);
      return bytes.subarray(0, this.length + TAIL.length);
    }
    const parts: Uint8Array[] = [HEAD];
    events.forEach((event, k) => {
      if (k > 0) parts.push(Buffer.from([COMMA]));
      parts.push(bytes.subarray(this.field(event, START), this.field(event, END)));
    });
    parts.push(TAIL);
    return Buffer.concat(parts);
  }

  /** The line as the file has it, for the rejects file: the event without the `event_id` written in. */
  rawOf(event: number): string {
    const json = this.slot.bytes.toString('utf8', this.field(event, START), this.field(event, END));
    const added = this.field(event, ADDED);
    if (added === 0) return json;
    // judge.ts writes it right after the object's `{`, which only JSON whitespace precedes.
    const open = json.indexOf('{') + 1;
    return json.slice(0, open) + json.slice(open + added);
  }

  /** The buffers go back to the pool: the batch is recorded, and nothing reads it any more. */
  release(): void {
    this.pool.give(this.slot);
    this.slot = { bytes: Buffer.alloc(0), index: new Float64Array(0) };
    this.events = 0;
  }

  private field(event: number, field: number): number {
    return this.slot.index[event * FIELDS + field] ?? 0;
  }

  // A larger buffer or index is this batch's own: at release, the pool takes back only slots of
  // its own sizes, and makes a new one when it next runs short.
  private reserve(bytes: number): void {
    const needed = this.length + bytes + TAIL.length;
    if (needed <= this.slot.bytes.length) return;
    const larger = Buffer.allocUnsafeSlow(needed);
    this.slot.bytes.copy(larger, 0, 0, this.length);
    this.slot = { bytes: larger, index: this.slot.index };
  }

  private growIndex(): void {
    const larger = new Float64Array(Math.max(FIELDS, this.slot.index.length * 2));
    larger.set(this.slot.index);
    this.slot = { bytes: this.slot.bytes, index: larger };
  }
}

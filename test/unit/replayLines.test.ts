import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BatchEvents, BodyPool } from '../../cli/commands/events/replay/body.js';
import { deriveEventId, judgeLine } from '../../cli/commands/events/replay/judge.js';
import { LineReader, READ_BYTES } from '../../cli/commands/events/replay/lines.js';

interface RawLine {
  line: number;
  text: string;
  end: number;
  bytes: number;
}

describe('replay: reading the file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-lines-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  async function linesOf(content: Buffer | string, fromByte = 0, fromLine = 0): Promise<RawLine[]> {
    const file = path.join(dir, 'events.ndjson');
    writeFileSync(file, content);
    const reader = await LineReader.open(file, fromByte, fromLine);
    const lines: RawLine[] = [];
    try {
      do {
        while (reader.next())
          lines.push({ line: reader.line, text: reader.text, end: reader.end, bytes: reader.bytes });
      } while (await reader.fill());
    } finally {
      await reader.close();
    }
    return lines;
  }

  it('gives each line its number, text and exact byte offsets (CRLF, a BOM, multi-byte text, no last break)', async () => {
    const lines = await linesOf('\uFEFF{"a":"é"}\r\n\n  \n{"b":"€"}');
    expect(lines).to.deep.equal([
      { line: 1, text: '{"a":"é"}', end: 15, bytes: 15 },
      { line: 2, text: '', end: 16, bytes: 1 },
      { line: 3, text: '  ', end: 19, bytes: 3 },
      { line: 4, text: '{"b":"€"}', end: 30, bytes: 11 },
    ]);
  });

  it('reads an empty file, and one of a single line without a break, to their end', async () => {
    expect(await linesOf('')).to.deep.equal([]);
    expect(await linesOf('{}')).to.deep.equal([{ line: 1, text: '{}', end: 2, bytes: 2 }]);
  });

  it('resumes at a byte offset with the line numbers that follow', async () => {
    const content = '{"n":1}\n{"n":2}\n{"n":3}\n';
    const lines = await linesOf(content, 8, 1);
    expect(lines.map((l) => [l.line, l.text, l.end])).to.deep.equal([
      [2, '{"n":2}', 16],
      [3, '{"n":3}', 24],
    ]);
  });

  it('keeps lines whole across reads: a long line, and a multi-byte character cut by a read', async () => {
    // A line of 2.5 reads, then a filler line that ends one byte before the third read does, so
    // that read ends inside the next line's first "€" (3 bytes in UTF-8).
    const long = `{"pad":"${'x'.repeat(Math.floor(READ_BYTES * 2.5))}"}`;
    const filler = 'y'.repeat(READ_BYTES * 3 - 1 - (Buffer.byteLength(long) + 1) - 1);
    const lines = [long, filler, '€€€€€€', '{"z":1}'];
    const content = `${lines.join('\n')}\n`;
    expect(Buffer.byteLength(`${long}\n${filler}\n`)).to.equal(READ_BYTES * 3 - 1);
    const read = await linesOf(content);
    expect(read.map((l) => l.text)).to.deep.equal(lines);
    expect(read.at(-1)?.end).to.equal(Buffer.byteLength(content));
    expect(read.map((l) => l.bytes).reduce((a, b) => a + b)).to.equal(Buffer.byteLength(content));
  });
});

describe('replay: a batch as the request body', () => {
  const lines = [
    '{"event_type":"lead","event_id":"own"}',
    ' { "event_type" : "page_view", "note": "été" }',
    '{"event_type":"lead","properties":{"order_value":49.90}}',
  ];

  function batchOf(texts: string[]): BatchEvents {
    const events = new BatchEvents(new BodyPool());
    texts.forEach((text, index) => {
      const judged = judgeLine(index + 1, text);
      if (judged.kind !== 'event') throw new Error(`line ${index + 1} is not an event`);
      events.add(index + 1, judged.json, judged.json.length - text.length);
    });
    return events;
  }
  const parsed = (body: Uint8Array) => JSON.parse(Buffer.from(body).toString('utf8')) as { events: object[] };

  it('is the lines themselves in one JSON document, each with an event_id', () => {
    const events = batchOf(lines);
    const body = Buffer.from(events.body()).toString('utf8');
    expect(body.startsWith('{"batch":true,"events":[')).to.equal(true);
    // 49.90 stays as written: nothing was parsed and written again.
    expect(body).to.include('"order_value":49.90');
    expect(parsed(events.body()).events).to.deep.equal([
      JSON.parse(lines[0] as string),
      { event_id: deriveEventId(2, lines[1] as string), event_type: 'page_view', note: 'été' },
      { event_id: deriveEventId(3, lines[2] as string), event_type: 'lead', properties: { order_value: 49.9 } },
    ]);
  });

  it('gives each line back as written, for the rejects file, and any of its events as a body of their own', () => {
    const events = batchOf(lines);
    expect([0, 1, 2].map((index) => events.rawOf(index))).to.deep.equal(lines);
    expect(parsed(events.body([2, 0])).events.map((e) => (e as { event_type: string }).event_type)).to.deep.equal([
      'lead',
      'lead',
    ]);
    expect([0, 1, 2].map((index) => events.lineOf(index))).to.deep.equal([1, 2, 3]);
  });

  it('takes an event larger than its pooled buffer in a buffer of its own', () => {
    const large = `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    const events = batchOf([large]);
    expect(events.rawOf(0)).to.equal(large);
    expect(parsed(events.body()).events).to.have.length(1);
  });
});

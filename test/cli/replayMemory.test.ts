import { expect } from 'chai';
import { parseJson, runCli } from '../helpers/cli.js';
import { exportedConversion } from '../helpers/exportLine.js';
import { tempDir, writeLines } from '../helpers/replay.js';

/** What an export holds (test/helpers/exportLine.ts): every line its own order, session, url and product, 20 affiliates. */
const exportLine = (n: number) =>
  JSON.stringify(
    exportedConversion({ campaign: 'spring-sale', affiliate: `AFF${n % 20}`, tag: 'ord', n, eventId: false }),
  );

/**
 * `events replay` keeps a bounded amount whatever the file's length: its peak RSS at 300,000
 * lines of a real export stays within 10 % of the peak at 100,000, and under 100 MB (the dry run
 * reads, judges and batches every line as a replay does, without a daemon).
 */
describe('events replay memory stays flat with the length of the file', function () {
  this.timeout(180_000);
  let files: ReturnType<typeof tempDir>;
  beforeEach(() => (files = tempDir()));
  afterEach(() => files.remove());

  const peakMb = async (lines: number) => {
    const file = files.file(`export-${lines}.ndjson`);
    await writeLines(file, lines, exportLine);
    const result = await runCli(['events', 'replay', file, '--dry-run', '--json'], { env: { ...process.env } });
    expect(result.code, result.stderr).to.equal(0);
    const summary = parseJson<{ lines: number; maxRssBytes: number }>(result);
    expect(summary.lines).to.equal(lines);
    return summary.maxRssBytes / 2 ** 20;
  };

  it('peak RSS at 300,000 lines is within 1.1× of 100,000 lines, and at most 100 MB', async () => {
    const small = await peakMb(100_000);
    const large = await peakMb(300_000);
    expect(large, `${small.toFixed(1)} MB at 100,000 lines, ${large.toFixed(1)} MB at 300,000`).to.be.at.most(
      small * 1.1,
    );
    expect(large).to.be.at.most(100);
  });
});

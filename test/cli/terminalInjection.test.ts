import { expect } from 'chai';
import { clientEnv, parseJson, runCli } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { conversion } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { makeAffiliate, tempDir } from '../helpers/replay.js';

/** What a hostile name holds: retitle the terminal (OSC … BEL), clear it (CSI 2J), and the 8-bit CSI. */
const HOSTILE = 'Eve\u001b]0;owned\u0007 \u001b[2J\u009b31m\u202Eend';
/** Characters a terminal obeys rather than shows (line feeds and tabs aside). */
function obeyed(text: string): string[] {
  return [...text].filter((char) => {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\n' || char === '\t') return false;
    return (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    );
  });
}

describe(`terminal injection: human output shows control characters, --json and CSV keep them (${ENGINE})`, () => {
  const t = useTestDaemon();
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  beforeEach(() => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
  });
  afterEach(() => files.remove());

  it('an affiliate named with ESC, BEL and CSI sequences is printed escaped, and round-trips exactly in --json', async () => {
    const made = await makeAffiliate(t.url, t.merchant.key, {
      email: 'eve@example.com',
      referralId: 'EVE1',
      name: HOSTILE,
    });
    const sale = conversion(t.merchant.publicId, 'EVE1', 'o-1', 10);
    expect(
      (await call(t.url, 'POST', '/v1/events', { key: t.merchant.key, body: { events: [sale] } })).status,
    ).to.equal(200);
    const escaped = 'Eve^[]0;owned^G ^[[2J^[[31m<U+202E>end';
    for (const args of [['affiliates', 'list'], ['affiliates', 'get', String(made.id)], ['report']]) {
      const result = await runCli(args, { env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0);
      expect(obeyed(result.stdout + result.stderr), args.join(' ')).to.deep.equal([]);
      expect(result.stdout, args.join(' ')).to.include(escaped);
    }
    const json = await runCli(['affiliates', 'get', String(made.id), '--json'], { env });
    expect(parseJson(json).name).to.equal(HOSTILE);
    const listed = parseJson(await runCli(['affiliates', 'list', '--json'], { env }));
    expect(listed.affiliates[0].name).to.equal(HOSTILE);
    const csv = await runCli(['affiliates', 'list', '--output', 'csv'], { env });
    expect(csv.stdout).to.include(`,${HOSTILE},`);
  });

  it('error messages that echo what was given are escaped too', async () => {
    const operator = { DATABASE_URL: t.database.url };
    const result = await runCli(['campaigns', 'get', 'x\u001b[2J\u0007'], { env: operator });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('Campaign x^[[2J^G not found');
    expect(obeyed(result.stderr)).to.deep.equal([]);
    const json = await runCli(['campaigns', 'get', 'x\u001b[2J', '--json'], { env: operator });
    expect([parseJson(json).message].flat()).to.deep.equal([
      'Campaign x\u001b[2J not found: see `affiliated campaigns list`',
    ]);
  });
});

import { expect } from 'chai';
import { type CliResult, runCli, spawnCli, startServe } from '../helpers/cli.js';
import { ENGINE } from '../helpers/database.js';
import { call } from '../helpers/http.js';
import { tempDir } from '../helpers/replay.js';

/**
 * A second `serve`, run until it exits or says it listens (then it is stopped): a daemon that
 * starts must fail the test, not hang it.
 */
async function refusedOrListening(env: Record<string, string>): Promise<CliResult> {
  const run = spawnCli(['serve', '--port', '0'], { env: { LOG_LEVEL: 'info', ...env } });
  const listening = new Promise<void>((resolve) => {
    run.child.stderr.on('data', () => {
      if (run.output().stderr.includes('"msg":"listening"')) resolve();
    });
  });
  const first = await Promise.race([run.done, listening.then(() => undefined)]);
  if (first) return first;
  run.child.kill('SIGTERM');
  return { ...(await run.done), code: null };
}

/** A SQLite file serves one daemon: a second `affiliated serve` on it is refused with a message. */
describe('one daemon per SQLite file', function () {
  let files: ReturnType<typeof tempDir>;
  before(function () {
    // About SQLite files; once is enough (the MySQL run has nothing to add).
    if (ENGINE !== 'sqlite') this.skip();
  });
  beforeEach(() => {
    files = tempDir();
  });
  afterEach(() => files.remove());

  it('refuses a second daemon on the same file, and lets one start once the first has stopped, however it stopped', async () => {
    const env = { DATABASE_URL: `sqlite:${files.file('shop.sqlite3')}` };
    const first = await startServe({ env });
    try {
      const second = await refusedOrListening(env);
      expect(second.code, second.stderr).to.equal(1);
      expect(second.stderr).to.include(
        `error: another daemon already serves the SQLite database ${files.file('shop.sqlite3')}: a SQLite file serves one daemon.`,
      );
      expect(second.stderr).to.not.include('"msg":"listening"');
      expect((await call(first.url, 'GET', '/health')).status).to.equal(200);
      // Operator commands work beside the daemon.
      expect((await runCli(['plans', 'list'], { env })).code).to.equal(0);
    } finally {
      first.child.kill('SIGTERM');
      await first.done;
    }
    // Stopped cleanly, then killed outright: the lock goes with the process either way.
    const again = await startServe({ env });
    again.child.kill('SIGKILL');
    await again.done;
    const third = await startServe({ env });
    expect((await call(third.url, 'GET', '/health')).status).to.equal(200);
    third.child.kill('SIGTERM');
    expect((await third.done).code).to.equal(0);
  });
});

import { expect } from 'chai';
import { createLogger } from '../../server/logger.js';
import { durabilitySettings } from '../../server/repositories/health.js';
import { durabilityWarningsOf } from '../../server/services/health.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

/**
 * A 200 means the data is on disk: the settings that make it so, as the daemon's own
 * connections see them (the crash suite of `npm run test:reliability` kills the daemon and
 * MariaDB during a replay and finds every acknowledged event).
 */
describe(`durability settings (${ENGINE})`, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => database?.drop());

  it('the daemon’s connections commit durably, and it says nothing at start when they do', async () => {
    const lines: string[] = [];
    const daemon = await startTestDaemon(
      database.url,
      {},
      { logger: createLogger('debug', (line) => lines.push(line)) },
    );
    try {
      const settings = await durabilitySettings(daemon.db);
      if (settings.engine === 'sqlite') {
        expect(settings).to.deep.equal({ engine: 'sqlite', journalMode: 'wal', synchronous: 2 });
      } else {
        expect(settings.flushLogAtTrxCommit).to.equal(1);
      }
      expect(lines.filter((line) => line.includes('durability'))).to.deep.equal([]);
    } finally {
      await daemon.close();
    }
  });

  it('names each weaker setting', () => {
    expect(durabilityWarningsOf({ engine: 'sqlite', journalMode: 'delete', synchronous: 1 })).to.have.length(1);
    expect(
      durabilityWarningsOf({ engine: 'mysql', flushLogAtTrxCommit: 1, logBin: false, syncBinlog: 0 }),
    ).to.deep.equal([]);
    expect(
      durabilityWarningsOf({ engine: 'mysql', flushLogAtTrxCommit: 2, logBin: true, syncBinlog: 0 }),
    ).to.deep.equal([
      "innodb_flush_log_at_trx_commit is 2, not 1: a 200 may not survive a crash of the database server's machine",
      "sync_binlog is 0, not 1, with the binary log on: a 200 may not survive a crash of the database server's machine",
    ]);
  });
});

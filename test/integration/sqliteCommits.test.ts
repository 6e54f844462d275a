import fs from 'node:fs';
import { expect } from 'chai';
import { inTransaction } from '../../server/db/knex.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

type Fdatasync = typeof fs.fdatasync;

/**
 * The daemon's SQLite commits (docs/architecture.md, "Commits on SQLite"): durable before
 * anyone is answered, with the fsync in the thread pool so the daemon's one thread keeps
 * serving, and one fsync shared by the commits made while another runs. The disk is real;
 * the test only holds `fs.fdatasync`'s answer back, as a slow disk would.
 */
describe(`SQLite commits (${ENGINE})`, function () {
  let database: TestDatabase;
  const realSync = fs.fdatasync;
  let held: Array<() => void> = [];
  let syncs = 0;

  before(async function () {
    if (ENGINE !== 'sqlite') return this.skip();
    database = await createTestDatabase({ migrate: false });
    await database.db.schema.createTable('notes', (t) => {
      t.increments('id');
      t.string('text').notNullable();
    });
  });
  after(async () => database?.drop());
  beforeEach(() => {
    held = [];
    syncs = 0;
    // Each fdatasync runs for real, and its answer waits until the test lets it through.
    fs.fdatasync = ((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      syncs++;
      realSync(fd, (err) => held.push(() => done(err)));
    }) as Fdatasync;
  });
  afterEach(() => {
    fs.fdatasync = realSync;
    for (const release of held) release();
  });

  const until = async (check: () => boolean) => {
    for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(check(), 'waited 1 s').to.equal(true);
  };
  const releaseAll = () => {
    const waiting = held;
    held = [];
    for (const release of waiting) release();
  };

  it('answers a transaction only once its log is synced, and serves reads meanwhile', async () => {
    const { db } = database;
    let resolved = false;
    const writing = inTransaction(db, (trx) => trx('notes').insert({ text: 'kept' })).then(() => (resolved = true));
    await until(() => held.length === 1);
    // Committed (a reader on the daemon's one connection sees it) but not yet answered.
    expect(await db('notes').where({ text: 'kept' }).count({ n: '*' })).to.deep.equal([{ n: 1 }]);
    expect(resolved, 'answered before its fsync').to.equal(false);
    releaseAll();
    await writing;
    expect(resolved).to.equal(true);
    // The connection is back to syncing every other commit itself.
    expect(await db.raw('PRAGMA synchronous')).to.deep.equal([{ synchronous: 2 }]);
  });

  it('shares one fsync among the commits made while another runs', async () => {
    const { db } = database;
    const notes = async () => Number((await db('notes').count({ n: '*' }))[0]?.n);
    const start = await notes();
    const answered: string[] = [];
    const insert = (text: string) =>
      inTransaction(db, (trx) => trx('notes').insert({ text })).then(() => answered.push(text));
    const first = insert('first');
    await until(() => held.length === 1);
    const later = [1, 2, 3, 4, 5].map((n) => insert(`later ${n}`));
    // All five commit while the first one's fsync runs, and wait for the next.
    for (let i = 0; i < 100 && (await notes()) < start + 6; i++) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(await notes()).to.equal(start + 6);
    expect(syncs, 'the later commits wait for the running fsync').to.equal(1);
    releaseAll();
    await first;
    await until(() => held.length === 1);
    expect(syncs, 'one more fsync for all five').to.equal(2);
    expect(answered, 'none is answered before its own fsync').to.deep.equal(['first']);
    releaseAll();
    await Promise.all(later);
    expect(answered).to.have.length(6);
  });

  it('tells every caller waiting on an fsync the disk refused', async () => {
    const { db } = database;
    fs.fdatasync = ((_fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
      syncs++;
      setImmediate(() => done(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })));
    }) as Fdatasync;
    const failed = await inTransaction(db, (trx) => trx('notes').insert({ text: 'refused' })).then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    expect(failed).to.equal('EIO: i/o error, fdatasync');
  });

  it('keeps synchronous=FULL inside the transaction of a file in another journal mode', async () => {
    const other = await createTestDatabase({ migrate: false });
    try {
      // Before any transaction: the connection's journal mode is read once, at its first.
      await other.db.raw('PRAGMA journal_mode = DELETE');
      const inside = await inTransaction(other.db, (trx) => trx.raw('PRAGMA synchronous'));
      expect(inside).to.deep.equal([{ synchronous: 2 }]);
      expect(syncs, 'SQLite synced the commit itself').to.equal(0);
    } finally {
      await other.drop();
    }
    const inWal = inTransaction(database.db, (trx) => trx.raw('PRAGMA synchronous'));
    await until(() => held.length === 1);
    releaseAll();
    expect(await inWal, 'in WAL mode the commit is synced aside').to.deep.equal([{ synchronous: 1 }]);
  });

  it('prepares a statement once per connection, and again by itself after a schema change', async () => {
    const { db } = database;
    const conn = (await db.client.acquireConnection()) as { prepare(sql: string): unknown };
    try {
      const sql = 'SELECT * FROM notes ORDER BY id LIMIT 1';
      expect(conn.prepare(sql)).to.equal(conn.prepare(sql));
    } finally {
      await db.client.releaseConnection(conn);
    }
    const before = await db('notes').orderBy('id').first();
    await db.schema.alterTable('notes', (t) => t.string('extra').nullable());
    const after = await db('notes').orderBy('id').first();
    expect(Object.keys(after)).to.deep.equal([...Object.keys(before), 'extra']);
  });
});

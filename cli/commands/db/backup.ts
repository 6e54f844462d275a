import fs from 'node:fs';
import path from 'node:path';
import type { Ora } from 'ora';
import type { Config } from '../../../server/config.js';
import { backupDatabase } from '../../../server/db/backup.js';
import type { BackupKey } from '../../../server/db/backupFormat.js';
import { readBackupHeader, RestoreRefused, restoreDatabase } from '../../../server/db/restore.js';
import { keyFileOf, keyFingerprint } from '../../../server/services/webhooks/secretBox.js';
import { databaseLabel } from '../../database.js';
import { CommandFailed } from '../../errors.js';
import type { Io } from '../../io.js';
import { withDatabase } from '../../operator.js';
import { count, type GlobalOptions, note, plural, printJson, printLine } from '../../output.js';

/** A progress bar on stderr, on a terminal only; elsewhere nothing. */
async function progressBar(io: Io): Promise<{ show(text: string, done: number, total: number): void; stop(): void }> {
  if (!io.stderr.isTTY) return { show: () => undefined, stop: () => undefined };
  const { default: ora } = await import('ora');
  const spinner: Ora = ora({ stream: io.stderr }).start();
  return {
    show(text, done, total) {
      const share = total > 0 ? Math.min(1, done / total) : 1;
      const filled = Math.round(share * 20);
      spinner.text = `${text} [${'#'.repeat(filled)}${'.'.repeat(20 - filled)}] ${Math.floor(share * 100)}%`;
    },
    stop: () => spinner.stop(),
  };
}

/** What a restore needs to open the stored secrets (docs/operations.md, "Backup and restore"). */
function keyOf(config: Readonly<Config>): BackupKey {
  if (config.webhooks.secretKey) return { source: 'variable', fingerprint: keyFingerprint(config.webhooks.secretKey) };
  const database = config.database;
  if (database.client === 'mysql') return { source: 'database' };
  const file = keyFileOf(database.filename);
  return fs.existsSync(file) ? { source: 'file', key: fs.readFileSync(file, 'utf8').trim() } : { source: 'none' };
}

export async function backup(io: Io, file: string, options: GlobalOptions): Promise<void> {
  const target = path.resolve(file);
  const bar = await progressBar(io);
  const result = await withDatabase(io, { json: options.json, migrate: false }, (db, config) =>
    backupDatabase(db, config.database, target, keyOf(config), ({ stage, done, total, table }) =>
      bar.show(stage === 'copy' ? 'Copying the database' : `Writing ${table ?? 'rows'}`, done, total),
    ).finally(() => bar.stop()),
  ).catch((err: unknown) => {
    if (err instanceof Error && /exists already/.test(err.message)) throw new CommandFailed(err.message, []);
    throw err;
  });
  const { header, rows } = result;
  if (options.json) {
    return printJson(io, {
      file: target,
      engine: header.engine,
      schema: header.schema,
      tables: header.tables.length,
      rows,
      key: header.key.source,
    });
  }
  printLine(
    io,
    `Backed up ${count(rows)} rows of ${plural(header.tables.length, 'table')} (schema ${header.schema}) to ${target}.`,
  );
  if (header.key.source !== 'variable' && header.key.source !== 'none') {
    note(io, 'The file holds the webhook key with the data (mode 0600): keep it as secret as the database.');
  } else if (header.key.source === 'variable') {
    note(io, `Restoring it needs the same WEBHOOK_SECRET_KEY (fingerprint ${header.key.fingerprint}).`);
  }
}

/** Refuses a restore whose stored secrets the restored daemon could not open, before any write. */
function checkKey(config: Readonly<Config>, file: string, key: BackupKey): void {
  const own = config.webhooks.secretKey;
  if (key.source === 'variable') {
    if (own && keyFingerprint(own) === key.fingerprint) return;
    throw new RestoreRefused(
      `${file}'s secrets were sealed with a WEBHOOK_SECRET_KEY of fingerprint ${key.fingerprint}; ${own ? `this one's is ${keyFingerprint(own)}` : 'WEBHOOK_SECRET_KEY is not set'}: set it to that key`,
    );
  }
  if (own && (key.source === 'database' || key.source === 'file')) {
    const where = key.source === 'file' ? 'the key file it carries' : 'the key stored in the database';
    if (key.source === 'file' && keyFingerprint(Buffer.from(key.key, 'base64')) === keyFingerprint(own)) return;
    throw new RestoreRefused(`${file}'s secrets were sealed with ${where}: unset WEBHOOK_SECRET_KEY to restore it`);
  }
}

/** The key file a SQLite backup carries, beside the restored database (never over another key). */
function writeKeyFile(config: Readonly<Config>, key: BackupKey): string | undefined {
  if (key.source !== 'file' || config.webhooks.secretKey || config.database.client !== 'sqlite') return undefined;
  const file = keyFileOf(config.database.filename);
  if (fs.existsSync(file)) {
    if (fs.readFileSync(file, 'utf8').trim() === key.key) return file;
    throw new RestoreRefused(`${file} exists and holds another key: move it away, then restore again`);
  }
  fs.writeFileSync(file, `${key.key}\n`, { flag: 'wx', mode: 0o600 });
  return file;
}

export async function restore(io: Io, file: string, options: GlobalOptions): Promise<void> {
  const source = path.resolve(file);
  const bar = await progressBar(io);
  try {
    const result = await withDatabase(io, { json: options.json, migrate: false, create: true }, async (db, config) => {
      const header = await readBackupHeader(source);
      checkKey(config, source, header.key);
      if (config.database.client === 'sqlite' && header.key.source === 'file') writeKeyFile(config, header.key);
      const restored = await restoreDatabase(db, config.database, source, databaseLabel(config.database), (step) =>
        bar.show(`Restoring ${step.table}`, step.done, step.total),
      ).finally(() => bar.stop());
      return { ...restored, label: databaseLabel(config.database) };
    });
    const { header, rows, migrated, label } = result;
    if (options.json) return printJson(io, { file: source, schema: header.schema, rows, migrated });
    printLine(
      io,
      `Restored ${count(rows)} rows of ${plural(header.tables.length, 'table')} (schema ${header.schema}) into ${label}.`,
    );
    if (migrated.length > 0) note(io, `Then applied ${plural(migrated.length, 'migration')}: ${migrated.join(', ')}`);
  } catch (err) {
    if (err instanceof RestoreRefused) throw new CommandFailed(err.message, []);
    throw err;
  }
}

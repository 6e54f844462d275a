import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { Config } from '../../config.js';
import type { Db } from '../../db/knex.js';
import { StartupError } from '../../errors.js';
import { oneSealedSecret, sharedSecretKey } from '../../repositories/webhookSettings.js';

/**
 * Webhook secrets must be usable to sign, so they are stored encrypted (AES-256-GCM), never
 * hashed. A stored value is `v1.<key id>.<iv>.<tag>.<ciphertext>`; the key id tells a value
 * sealed under another key from a damaged one.
 */
export interface SecretBox {
  seal(secret: string): Promise<string>;
  /** The secret, or undefined when it was sealed under another key or is damaged. */
  open(sealed: string): Promise<string | undefined>;
}

const AAD = Buffer.from('affiliated webhook secret');

interface SyncBox {
  seal(secret: string): string;
  open(sealed: string): string | undefined;
}

/** The key's id in every value it seals: names a key without revealing it. */
export const keyFingerprint = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

export function secretBox(key: Buffer): SyncBox {
  const keyId = keyFingerprint(key);
  return {
    seal(secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(AAD);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64'));
      return ['v1', keyId, ...parts].join('.');
    },
    open(value) {
      const [version, id, iv, tag, sealed] = value.split('.');
      if (version !== 'v1' || id !== keyId || !iv || !tag || sealed === undefined) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64')).setAAD(AAD);
        decipher.setAuthTag(Buffer.from(tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        return undefined;
      }
    },
  };
}

/** The key file kept beside a SQLite database: a copy of the database alone does not reveal secrets. */
export function keyFileOf(sqliteFile: string): string {
  return `${sqliteFile}.webhook-key`;
}

function readOrCreateKeyFile(file: string): Buffer {
  try {
    fs.writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new StartupError(`cannot create the webhook key file ${file}: set WEBHOOK_SECRET_KEY instead`);
    }
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new StartupError(`${file} does not hold a 32-byte base64 key`);
  return key;
}

/**
 * WEBHOOK_SECRET_KEY when set; else a key generated once and kept beside the SQLite file
 * (mode 0600), or in the MySQL database itself so every daemon sharing it agrees.
 */
async function loadKey(config: Readonly<Config>, db: Db): Promise<Buffer> {
  if (config.webhooks.secretKey) return config.webhooks.secretKey;
  const database = config.database;
  if (database.client === 'sqlite') {
    if (database.filename === ':memory:') return randomBytes(32);
    return readOrCreateKeyFile(keyFileOf(database.filename));
  }
  const stored = Buffer.from(await sharedSecretKey(db, randomBytes(32).toString('base64')), 'base64');
  if (stored.length !== 32) throw new StartupError('webhook_settings.secret_key is not a 32-byte base64 key');
  return stored;
}

/** The key is found (or made) on first use, so commands that never touch webhooks never create it. */
export function lazySecretBox(config: Readonly<Config>, db: Db): SecretBox {
  let box: Promise<SyncBox> | undefined;
  const ready = () => {
    box ??= loadKey(config, db).then(secretBox, (err: unknown) => {
      box = undefined;
      throw err;
    });
    return box;
  };
  return {
    seal: async (secret) => (await ready()).seal(secret),
    open: async (sealed) => (await ready()).open(sealed),
  };
}

/** Where the key comes from, as an operator would look for it. */
export function keyName(config: Readonly<Config>): string {
  if (config.webhooks.secretKey) return 'WEBHOOK_SECRET_KEY';
  const database = config.database;
  return database.client === 'sqlite' ? `the key file ${keyFileOf(database.filename)}` : 'webhook_settings.secret_key';
}

/**
 * A daemon whose key cannot open the secrets its database holds (a database copied without its
 * key file, WEBHOOK_SECRET_KEY changed) would fail every signed webhook and billing event later,
 * each with a message that does not name the cause; so it stops at start, in one line naming the
 * key. A missing key file is not made anew when secrets need the old one.
 */
export async function refuseKeyThatCannotOpen(config: Readonly<Config>, db: Db): Promise<void> {
  const sealed = await oneSealedSecret(db);
  if (sealed === undefined) return;
  const database = config.database;
  const name = keyName(config);
  if (!config.webhooks.secretKey && database.client === 'sqlite' && database.filename !== ':memory:') {
    if (!fs.existsSync(keyFileOf(database.filename))) {
      throw new StartupError(
        `${name} is missing, and the webhook and billing secrets stored in this database were sealed with it: put it back beside the database (or set WEBHOOK_SECRET_KEY to its content)`,
      );
    }
  }
  if (secretBox(await loadKey(config, db)).open(sealed) !== undefined) return;
  throw new StartupError(
    `${name} cannot open the webhook and billing secrets stored in this database (sealed under another key): start with the key they were sealed with`,
  );
}

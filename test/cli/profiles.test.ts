import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import type { Daemon } from '../../server/main.js';
import { clientEnv, parseJson, runCli } from '../helpers/cli.js';
import { createMerchant, type Merchant, startTestDaemon } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';
import { tempDir } from '../helpers/replay.js';

describe(`profiles: config set|get|list as a child process (${ENGINE})`, () => {
  let t: TestDatabase;
  let daemon: Daemon;
  let merchant: Merchant;
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCli(args, { env: { ...env, ...extra } });

  before(async () => {
    t = await createTestDatabase();
    daemon = await startTestDaemon(t.url);
    merchant = await createMerchant(t.db);
  });
  beforeEach(() => {
    files = tempDir();
    // Nothing from the developer's own shell may leak into these runs.
    env = clientEnv(files.file('config.json'));
  });
  afterEach(() => files.remove());
  after(async () => {
    await daemon.close();
    await t.drop();
  });

  it('writes the config file with mode 0600 and never prints a key whole', async () => {
    const setUrl = await cli(['config', 'set', 'base-url', `${daemon.url}/`]);
    expect(setUrl.code, setUrl.stderr).to.equal(0);
    const setKey = await cli(['config', 'set', 'api-key', merchant.key, '--json']);
    expect(setKey.code, setKey.stderr).to.equal(0);
    expect(parseJson(setKey)).to.deep.include({ profile: 'default', setting: 'api-key' });
    const file = files.file('config.json');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.profiles.default).to.deep.equal({ baseUrl: daemon.url, apiKey: merchant.key });

    const masked = `${merchant.key.slice(0, 8)}…${merchant.key.slice(-4)}`;
    const [getKey, getKeyJson, list, listJson] = await Promise.all([
      cli(['config', 'get', 'api-key']),
      cli(['config', 'get', 'api-key', '--json']),
      cli(['config', 'list']),
      cli(['config', 'list', '--json']),
    ]);
    for (const out of [setKey, getKey, getKeyJson, list, listJson]) {
      expect(out.code).to.equal(0);
      expect(out.stdout + out.stderr).not.to.include(merchant.key);
    }
    expect(getKey.stdout.trim()).to.equal(masked);
    expect(parseJson(getKeyJson)).to.deep.equal({
      profile: 'default',
      setting: 'api-key',
      value: masked,
      source: 'profile',
    });
    expect(parseJson(listJson).profiles).to.deep.equal([
      { name: 'default', active: true, baseUrl: daemon.url, apiKey: masked },
    ]);
  });

  it('uses XDG_CONFIG_HOME when AFFILIATED_CONFIG is not set', async () => {
    const xdg = files.file('xdg');
    const result = await cli(['config', 'set', 'base-url', 'http://127.0.0.1:4000', '--json'], {
      AFFILIATED_CONFIG: undefined,
      XDG_CONFIG_HOME: xdg,
    });
    expect(result.code, result.stderr).to.equal(0);
    const file = path.join(xdg, 'affiliated', 'config.json');
    expect(parseJson(result).file).to.equal(file);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
  });

  it('precedence: --base-url/--api-key, then AFFILIATED_* variables, then the profile', async () => {
    await cli(['config', 'set', 'base-url', 'http://profile.example:1']);
    await cli(['config', 'set', 'api-key', 'afk_fromprofile000000000000000000001']);
    const get = async (setting: string, args: string[] = [], extra = {}) =>
      parseJson(await cli(['config', 'get', setting, '--json', ...args], extra));

    expect(await get('base-url')).to.include({ value: 'http://profile.example:1', source: 'profile' });
    const envVars = {
      AFFILIATED_BASE_URL: 'http://env.example:2',
      AFFILIATED_API_KEY: 'afk_fromenv00000000000000000000000002',
    };
    expect(await get('base-url', [], envVars)).to.include({ value: 'http://env.example:2', source: 'env' });
    expect(await get('api-key', [], envVars)).to.include({ value: 'afk_from…0002', source: 'env' });
    const flags = ['--base-url', 'http://flag.example:3', '--api-key', 'afk_fromflag0000000000000000000000003'];
    expect(await get('base-url', flags, envVars)).to.include({
      value: 'http://flag.example:3',
      source: 'flag',
    });
    expect(await get('api-key', flags, envVars)).to.include({ value: 'afk_from…0003', source: 'flag' });
    expect(await get('base-url', [], { AFFILIATED_CONFIG: files.file('none.json') })).to.include({
      value: 'http://127.0.0.1:3000',
      source: 'default',
    });
  });

  it('precedence holds against a real daemon: env beats profile, flag beats env', async () => {
    await cli(['config', 'set', 'base-url', daemon.url]);
    await cli(['config', 'set', 'api-key', merchant.key]);
    expect((await cli(['affiliates', 'list', '--json'])).code).to.equal(0);
    const badEnv = { AFFILIATED_API_KEY: 'afk_notakey0000000000000000000000000' };
    const refused = await cli(['affiliates', 'list'], badEnv);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('error 401: Invalid or inactive API Key');
    const flagged = await cli(['affiliates', 'list', '--json', '--api-key', merchant.key], badEnv);
    expect(flagged.code, flagged.stderr).to.equal(0);
  });

  it('--profile and AFFILIATED_PROFILE keep profiles apart', async () => {
    await cli(['config', 'set', 'base-url', 'http://one.example:1']);
    await cli(['--profile', 'staging', 'config', 'set', 'base-url', 'http://two.example:2']);
    await cli(['config', 'set', 'api-key', 'afk_staging0000000000000000000000000009', '--profile', 'staging']);
    const listed = parseJson(await cli(['config', 'list', '--json', '--profile', 'staging']));
    expect(listed.profiles.map((p: { name: string; active: boolean }) => [p.name, p.active])).to.deep.equal([
      ['default', false],
      ['staging', true],
    ]);
    const viaEnv = parseJson(await cli(['config', 'get', 'base-url', '--json'], { AFFILIATED_PROFILE: 'staging' }));
    expect(viaEnv).to.include({ profile: 'staging', value: 'http://two.example:2' });
    const noKey = await cli(['affiliates', 'list']);
    expect(noKey.code).to.equal(2);
    expect(noKey.stderr).to.include('no API key for profile "default"');
  });

  it('a missing key says how to set one; bad values are usage errors', async () => {
    const noKey = await cli(['affiliates', 'list', '--base-url', daemon.url]);
    expect(noKey.code).to.equal(2);
    expect(noKey.stderr).to.include('affiliated config set api-key KEY');
    expect(noKey.stderr).to.include('AFFILIATED_API_KEY');
    const noKeyJson = await cli(['affiliates', 'list', '--json']);
    expect(noKeyJson.code).to.equal(2);
    expect(parseJson(noKeyJson).error).to.include('affiliated config set api-key');
    // Without a terminal the hidden prompt cannot run.
    const prompt = await cli(['config', 'set', 'api-key']);
    expect(prompt.code).to.equal(2);
    expect(prompt.stderr).to.include('required when not running interactively');
    expect((await cli(['config', 'set', 'base-url', 'not a url'])).code).to.equal(2);
    expect((await cli(['config', 'set', 'password', 'x'])).code).to.equal(2);
  });
});

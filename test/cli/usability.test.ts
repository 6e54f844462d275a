import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { clientEnv, CLI, parseJson, runCli, runCliInProcess } from '../helpers/cli.js';
import { type Merchant, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { makeAffiliate, tempDir } from '../helpers/replay.js';
import { openTerminal } from '../helpers/terminal.js';

/** RFC 4180 read back: quoted fields, doubled quotes, CRLF lines. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  return rows;
}

describe(`the CLI as people use it, against a real daemon (${ENGINE})`, () => {
  const t = useTestDaemon();
  let merchant: Merchant;
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
    runCliInProcess(args, { env: { ...env, ...extra } });

  beforeEach(() => {
    merchant = t.merchant;
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: merchant.key });
  });
  afterEach(() => files.remove());

  it('--output csv on list commands parses back to the same rows', async () => {
    const tricky = 'Ana "A", =cmd\nSilva';
    await makeAffiliate(t.url, merchant.key, { email: 'ana@example.com', referralId: 'ANA1', name: tricky });
    await makeAffiliate(t.url, merchant.key, { email: 'bia@example.com', referralId: 'BIA1', name: '=1+1' });
    const listed = await cli(['affiliates', 'list', '--all', '--output', 'csv']);
    expect(listed.code, listed.stderr).to.equal(0);
    const rows = parseCsv(listed.stdout);
    expect(rows[0]).to.deep.equal([
      'id',
      'name',
      'email',
      'referral',
      'status',
      'rule',
      'parent',
      'conversions',
      'commissions',
      'paid',
      'created',
    ]);
    expect(rows.slice(1).map((r) => [r[1], r[2], r[3]])).to.deep.equal([
      // A spreadsheet formula is defused with a leading quote; the rest comes back byte for byte.
      ["'=1+1", 'bia@example.com', 'BIA1'],
      [tricky, 'ana@example.com', 'ANA1'],
    ]);
    for (const list of [
      ['conversions', 'list'],
      ['payouts', 'list'],
      ['webhooks', 'list'],
    ]) {
      const res = await cli([...list, '--output', 'csv']);
      expect(res.code, `${list.join(' ')}: ${res.stderr}`).to.equal(0);
      expect(parseCsv(res.stdout)).to.have.length(1);
      expect(parseCsv(res.stdout)[0]?.[0]).to.equal('id');
    }
    const bad = await cli(['affiliates', 'list', '--output', 'xml']);
    expect(bad.code).to.equal(2);
  });

  it("--phone '' and --name '' clear the field", async () => {
    const made = parseJson(
      await cli([
        'affiliates',
        'create',
        '--email',
        'c@example.com',
        '--password',
        'secret1',
        '--name',
        'Cida',
        '--phone',
        '+55 11 5555',
        '--json',
      ]),
    );
    expect(made).to.include({ name: 'Cida', phone: '+55 11 5555' });
    const cleared = await cli(['affiliates', 'update', String(made.id), '--phone', '', '--name', '', '--json']);
    expect(cleared.code, cleared.stderr).to.equal(0);
    // The API leaves a cleared field out of the affiliate.
    expect(parseJson(cleared)).to.not.have.any.keys('name', 'phone');
    const got = await cli(['affiliates', 'get', String(made.id)]);
    expect(got.stdout).to.match(/name:\s+-\n/);
    expect(got.stdout).to.match(/phone:\s+-\n/);
  });

  it('a base URL ending in /v1 works; https against the http daemon is explained in words', async () => {
    const withV1 = await cli(['affiliates', 'list', '--json'], { AFFILIATED_BASE_URL: `${t.url}/v1/` });
    expect(withV1.code, withV1.stderr).to.equal(0);
    expect(parseJson(withV1).affiliates).to.deep.equal([]);
    const https = await cli(['affiliates', 'list'], { AFFILIATED_BASE_URL: t.url.replace('http:', 'https:') });
    expect(https.code).to.equal(1);
    expect(https.stderr).to.include('was called with https://, but the server there does not speak TLS');
    expect(https.stderr).to.include(`Use ${t.url}.`);
    expect(https.stderr).to.not.match(/SSL|ssl3|ERR_/);
  });

  it('status: base URL, daemon, database, key and its campaign; exit 1 when the key is refused', async () => {
    const ok = await cli(['status']);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).to.include(`base URL: ${t.url} (env)`);
    expect(ok.stdout).to.match(/ok\s+daemon\s+answers at/);
    expect(ok.stdout).to.match(/ok\s+database/);
    expect(ok.stdout).to.include(`is valid for campaign "${merchant.publicId}"`);
    expect(ok.stdout).to.not.include(merchant.key);
    const bad = await cli(['status', '--json'], { AFFILIATED_API_KEY: 'afk_00000000000000000000000000000000' });
    expect(bad.code).to.equal(1);
    const body = parseJson(bad);
    expect(body.ok).to.equal(false);
    expect(body.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).to.deep.equal([
      ['daemon', true],
      ['database', true],
      ['apiKey', false],
    ]);
    const down = await cli(['status'], { AFFILIATED_BASE_URL: 'http://127.0.0.1:9' });
    expect(down.code).to.equal(1);
    expect(down.stdout).to.match(/FAIL daemon\s+nothing answers at http:\/\/127\.0\.0\.1:9/);
  });

  it('a plan-limit 403 prints the spec message, then the command that lifts it', async () => {
    const operator = { DATABASE_URL: t.database.url };
    const moved = await runCli(['campaigns', 'update', merchant.publicId, '--plan', 'free', '--json'], {
      env: operator,
    });
    expect(moved.code, moved.stderr).to.equal(0);
    for (let n = 1; n <= 10; n++) await makeAffiliate(t.url, merchant.key, { email: `p${n}@example.com` });
    const refused = await cli(['affiliates', 'create', '--email', 'eleven@example.com', '--password', 'secret1']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(
      'error 403: Affiliate limit exceeded: Affiliate limit reached for free plan. Current: 10/10',
    );
    expect(refused.stderr).to.include(`affiliated campaigns update ${merchant.publicId} --plan starter`);
  });

  it('operator commands name the database they used, never its password', async () => {
    const res = await runCli(['campaigns', 'list'], { env: { DATABASE_URL: t.database.url } });
    expect(res.code, res.stderr).to.equal(0);
    const url = new URL(t.database.url.replace(/^sqlite:/, 'file:'));
    if (ENGINE === 'mysql') {
      expect(res.stderr).to.include(`Database: MySQL ${url.hostname}${url.pathname}`);
      expect(res.stderr).to.not.include(`${url.username}:`);
      expect(res.stderr).to.not.include(t.database.url);
    } else {
      expect(res.stderr).to.match(/Database: SQLite \S*test\.sqlite3/);
    }
  });

  it('a missing file is a sentence, not ENOENT', async () => {
    const res = await cli([
      'webhooks',
      'verify',
      '--secret',
      'whsec_x',
      '--header',
      'webhook-id: m',
      '--body',
      'nope.json',
    ]);
    expect(res.code).to.equal(2);
    expect(res.stderr).to.include(
      'error: --body: there is no file nope.json (check the name and the folder you run from)',
    );
    expect(res.stderr).to.not.include('ENOENT');
  });

  it('config use and config delete', async () => {
    const own = { ...env, AFFILIATED_BASE_URL: undefined, AFFILIATED_API_KEY: undefined };
    expect(
      (await runCliInProcess(['--profile', 'live', 'config', 'set', 'base-url', t.url], { env: own })).code,
    ).to.equal(0);
    expect(
      (await runCliInProcess(['--profile', 'live', 'config', 'set', 'api-key', merchant.key], { env: own })).code,
    ).to.equal(0);
    const before = await runCliInProcess(['affiliates', 'list'], { env: own });
    expect(before.code).to.equal(2);
    expect(before.stderr).to.include('no API key for profile "default"');
    const used = await runCliInProcess(['config', 'use', 'live'], { env: own });
    expect(used.code, used.stderr).to.equal(0);
    const after = await runCliInProcess(['affiliates', 'list', '--json'], { env: own });
    expect(after.code, after.stderr).to.equal(0);
    expect((await runCliInProcess(['config', 'use', 'nope'], { env: own })).code).to.equal(2);
    const unasked = await runCliInProcess(['config', 'delete', 'live'], { env: own });
    expect(unasked.code).to.equal(2);
    const deleted = await runCliInProcess(['config', 'delete', 'live', '--yes', '--json'], { env: own });
    expect(deleted.code, deleted.stderr).to.equal(0);
    const file = JSON.parse(readFileSync(files.file('config.json'), 'utf8'));
    expect(file).to.deep.equal({ profiles: {} });
  });

  it('init on a terminal: asks, shows plan limits, shows the key once, checks the daemon, never overwrites silently', async function () {
    this.timeout(120000);
    const operator = {
      ...env,
      DATABASE_URL: t.database.url,
      AFFILIATED_BASE_URL: undefined,
      AFFILIATED_API_KEY: undefined,
      BCRYPT_ROUNDS: '4',
    };
    const term = openTerminal(['init'], { env: operator, cwd: files.dir, dir: files.dir });
    try {
      await term.waitFor('Address of the daemon');
      // The default is the configured HOST/PORT here; the daemon really runs elsewhere.
      term.press('C-u');
      term.type(t.url);
      term.press('Enter');
      await term.waitFor('Campaign name');
      term.type('Black Friday');
      term.press('Enter');
      const plans = await term.waitFor('Plan');
      expect(plans).to.include('free (10 affiliates, 100 conversions a month)');
      expect(plans).to.include('unlimited (unlimited affiliates, unlimited conversions a month)');
      term.press('Enter');
      expect(await term.exitCode()).to.equal(0);
      const shown = term.screen();
      expect(shown).to.include('public id black-friday');
      const saved = JSON.parse(readFileSync(files.file('config.json'), 'utf8')).profiles.default;
      expect(saved.baseUrl).to.equal(t.url);
      expect(shown).to.include(saved.apiKey);
      expect(shown).to.include(`The daemon at ${t.url} answers and accepts the key (campaign black-friday)`);
      expect(shown).to.include('npx affiliated affiliates create');
    } finally {
      term.close();
    }
    // Again: the profile exists, so it asks; "no" changes nothing.
    const again = openTerminal(['init', '--name', 'Other', '--plan', 'free', '--base-url', t.url], {
      env: operator,
      cwd: files.dir,
      dir: files.dir,
    });
    try {
      await again.waitFor('Profile "default" exists');
      again.type('n');
      again.press('Enter');
      expect(await again.exitCode()).to.equal(1);
      expect(again.screen()).to.include('Nothing created');
    } finally {
      again.close();
    }
    const { campaigns } = parseJson(await runCli(['campaigns', 'list', '--json'], { env: operator }));
    expect(campaigns.map((c: { name: string }) => c.name)).to.not.include('Other');
    // Not on a terminal: --force is the way.
    const noForce = await runCli(['init', '--name', 'Other', '--plan', 'free', '--base-url', t.url], { env: operator });
    expect(noForce.code).to.equal(2);
    expect(noForce.stderr).to.include('profile "default" exists');
  });

  it('init against a daemon on another database says so, exit 1', async () => {
    const elsewhere = tempDir();
    try {
      const operator = { ...env, DATABASE_URL: `sqlite:${elsewhere.file('other.sqlite3')}`, BCRYPT_ROUNDS: '4' };
      const res = await runCli(['init', '--name', 'Lost', '--plan', 'free', '--base-url', t.url, '--force'], {
        env: operator,
      });
      expect(res.code).to.equal(1);
      expect(res.stderr).to.include('answers but does not know the new key: it runs on another database');
    } finally {
      elsewhere.remove();
    }
  });

  it('affiliates delete on a terminal names whom it deletes; an unknown id fails before asking', async function () {
    this.timeout(60000);
    const { id } = await makeAffiliate(t.url, merchant.key, {
      email: 'dora@example.com',
      referralId: 'DORA1',
      name: 'Dora',
    });
    const term = openTerminal(['affiliates', 'delete', String(id)], { env, cwd: files.dir, dir: files.dir });
    try {
      const asked = await term.waitFor('This cannot be undone');
      expect(asked).to.include(
        `Delete affiliate ${id} (Dora <dora@example.com>, referral code DORA1) with 0 conversions`,
      );
      term.type('y');
      term.press('Enter');
      expect(await term.exitCode()).to.equal(0);
    } finally {
      term.close();
    }
    const unknown = openTerminal(['affiliates', 'delete', '999999'], { env, cwd: files.dir, dir: files.dir });
    try {
      expect(await unknown.exitCode()).to.equal(1);
      expect(unknown.screen()).to.include('error 404');
      expect(unknown.screen()).to.not.include('cannot be undone');
    } finally {
      unknown.close();
    }
  });
});

describe('the CLI from a folder with no database', () => {
  let files: ReturnType<typeof tempDir>;
  beforeEach(() => {
    files = tempDir();
  });
  afterEach(() => files.remove());
  const here = () => ({
    cwd: files.dir,
    env: { DATABASE_URL: undefined, BCRYPT_ROUNDS: '4', AFFILIATED_CONFIG: files.file('c.json') },
  });

  it('operator commands refuse, naming the path and the way to the right database; db migrate creates it', async () => {
    const expected = path.join(files.dir, 'data/affiliated.sqlite3');
    for (const args of [
      ['campaigns', 'list'],
      ['keys', 'list'],
      ['plans', 'list'],
      ['db', 'status'],
    ]) {
      const res = await runCli(args, here());
      expect(res.code, args.join(' ')).to.equal(1);
      expect(res.stderr).to.include(`No database at ${expected}.`);
      expect(res.stderr).to.include('set DATABASE_URL');
      expect(res.stderr).to.include('from the folder the daemon runs in');
    }
    expect(existsSync(expected)).to.equal(false);
    const migrated = await runCli(['db', 'migrate'], here());
    expect(migrated.code, migrated.stderr).to.equal(0);
    expect(migrated.stderr).to.include(`Created a new SQLite database at ${expected}.`);
    const listed = await runCli(['campaigns', 'list'], here());
    expect(listed.code, listed.stderr).to.equal(0);
    // Human output names the database used.
    expect(listed.stderr).to.include('Database: SQLite ./data/affiliated.sqlite3');
    expect((await runCli(['campaigns', 'list', '--json'], here())).stderr).to.equal('');
  });

  it('an explicit DATABASE_URL is taken as given', async () => {
    const res = await runCli(['plans', 'list'], {
      ...here(),
      env: { ...here().env, DATABASE_URL: 'sqlite:./mine.sqlite3' },
    });
    expect(res.code, res.stderr).to.equal(0);
    expect(existsSync(files.file('mine.sqlite3'))).to.equal(true);
    expect(res.stderr).to.include('Database: SQLite ./mine.sqlite3');
  });
});

describe('help, usage errors, version and completion', () => {
  it('a usage error is short: the error, "Did you mean", one hint line; exit 2', async () => {
    const typo = await runCli(['campaigns', 'lst']);
    expect(typo.code).to.equal(2);
    expect(typo.stderr.trim().split('\n')).to.deep.equal([
      "error: unknown command 'lst'",
      '(Did you mean list?)',
      '(see `affiliated campaigns --help`)',
    ]);
    for (const args of [
      ['affiliates', 'list', '--limit', '500'],
      ['affiliates', 'list', '--page', '0'],
      ['conversions', 'list', '--limit', '101'],
    ]) {
      const res = await runCli(args, { env: { AFFILIATED_API_KEY: 'afk_x' } });
      expect(res.code, args.join(' ')).to.equal(2);
      expect(res.stderr.trim().split('\n')).to.have.length(2);
      expect(res.stderr).to.include(`(see \`affiliated ${args[0]} list --help\`)`);
    }
  });

  it('--version and -v print the version of package.json', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    for (const flag of ['--version', '-v']) {
      const res = await runCli([flag]);
      expect(res.code).to.equal(0);
      expect(res.stdout.trim()).to.equal(version);
    }
  });

  it('every command’s help shows the global options and examples, and docs/cli.md names it', async () => {
    const { buildProgram } = await import('../../cli/program.js');
    const { PassThrough } = await import('node:stream');
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {}, interactive: false };
    const program = buildProgram(io);
    const docs = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
    const leaves: string[] = [];
    const walk = (command: typeof program, names: string[]) => {
      if (command.commands.length === 0) leaves.push(names.join(' '));
      for (const sub of command.commands) walk(sub, [...names, sub.name()]);
    };
    walk(program, []);
    expect(leaves.length).to.be.greaterThan(40);
    const missing = leaves.filter((leaf) => !docs.includes(`affiliated ${leaf}`));
    expect(missing, 'commands missing from docs/cli.md').to.deep.equal([]);
    for (const leaf of leaves) {
      let command = program;
      for (const name of leaf.split(' ')) command = command.commands.find((c) => c.name() === name) ?? command;
      let text = '';
      command.configureOutput({ writeOut: (s) => (text += s) });
      command.outputHelp();
      expect(text, leaf).to.include('Global Options:');
      for (const flag of ['--json', '--profile', '--base-url']) expect(text, leaf).to.include(flag);
      expect(text, leaf).to.match(new RegExp(`Examples:\\n  \\$ (\\S+=\\S+ )*affiliated`));
    }
  });

  it('every example in the help parses: its command, options and values exist', async () => {
    const { buildProgram } = await import('../../cli/program.js');
    const { PassThrough } = await import('node:stream');
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), env: {}, interactive: false };
    const examples: string[] = [];
    const collect = (command: ReturnType<typeof buildProgram>) => {
      let text = '';
      command.configureOutput({ writeOut: (t) => (text += t) });
      command.outputHelp();
      const block = text.split('Examples:\n')[1] ?? '';
      // Continuation lines (ending in a backslash) belong to the example before them.
      examples.push(
        ...block
          .replace(/\\\n\s+/g, '')
          .split('\n')
          .filter((line) => line.startsWith('  $ ')),
      );
      for (const sub of command.commands) collect(sub);
    };
    collect(buildProgram(io));
    expect(examples.length).to.be.greaterThan(60);
    /** Shell words of the part before a comment, a pipe or a redirection; quotes removed. */
    const words = (line: string) => {
      const out: string[] = [];
      for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|([^\s'"]+)/g)) {
        const bare = m[3];
        if (bare !== undefined && /^(#|\||>|>>|&&)/.test(bare)) break;
        out.push(m[1] ?? m[2] ?? bare ?? '');
      }
      return out;
    };
    for (const line of examples) {
      const args = words(line.slice(4)).filter((w) => !/^[A-Z_]+=/.test(w));
      expect(args[0], line).to.equal('affiliated');
      const program = buildProgram(io);
      // Every action replaced by a no-op: parsing alone says whether the example is well formed.
      const stub = (command: typeof program) => {
        command.action(() => undefined);
        for (const sub of command.commands) stub(sub);
      };
      for (const sub of program.commands) stub(sub);
      const error = await program.parseAsync(['node', ...args]).then(
        () => undefined,
        (err: Error) => err.message,
      );
      expect(error, `example does not parse: ${line}`).to.equal(undefined);
    }
  });

  it('affiliated completion bash loads in bash and completes commands, options and fixed values', function () {
    const bin = tempDir();
    try {
      writeFileSync(bin.file('affiliated'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`, { mode: 0o755 });
      const run = (words: string) =>
        execFileSync(
          'bash',
          [
            '-c',
            `source <(affiliated completion bash) && complete -p affiliated && COMP_WORDS=(${words}) && COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)) && _affiliated && echo "\${COMPREPLY[*]}"`,
          ],
          { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', PATH: `${bin.dir}:${process.env.PATH}` } },
        );
      expect(run('affiliated aff')).to.equal('complete -F _affiliated affiliated\naffiliates\n');
      expect(run('affiliated affiliates list --status ""').trim().split('\n')[1]).to.equal('pending active inactive');
      expect(run('affiliated payouts export --format ""').trim().split('\n')[1]).to.equal('csv json');
      expect(run('affiliated campaigns create --co').trim().split('\n')[1]).to.equal(
        '--commission-percent --commission-fixed --cookie-days',
      );
    } finally {
      bin.remove();
    }
    for (const shell of ['zsh', 'fish']) {
      const script = execFileSync(process.execPath, [CLI, 'completion', shell], {
        encoding: 'utf8',
        env: { ...process.env, NODE_OPTIONS: '' },
      });
      expect(script, shell).to.include('affiliates');
      expect(script, shell).to.include('pending active inactive');
    }
  });
});

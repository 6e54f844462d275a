import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { tempDir } from '../helpers/replay.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * `npx affiliated` outside the project folder reaches for a package of that name on the
 * registry. The README's way to run the CLI from anywhere is run here as written: the lines in
 * the project folder, then the command from another folder.
 */
describe('the README says how to run the CLI from any folder, and that way works', () => {
  it('the alias line, typed in the project folder, runs this CLI from another folder', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const block = /<!-- cli-anywhere -->\n```sh\n([\s\S]*?)```\n<!-- \/cli-anywhere -->/.exec(readme)?.[1];
    expect(block, 'README.md has the cli-anywhere block').to.be.a('string');
    const lines = (block ?? '').split('\n');
    expect(lines.some((line) => line.startsWith('npm link'))).to.equal(true);
    const alias = lines.find((line) => line.startsWith('alias affiliated='));
    expect(alias, 'an alias line').to.be.a('string');
    const files = tempDir();
    try {
      const script = files.file('anywhere.sh');
      // The line as a person types it: its comment stays, the shell ignores it.
      writeFileSync(
        script,
        `shopt -s expand_aliases\ncd ${JSON.stringify(root)}\n${alias}\ncd ${JSON.stringify(files.dir)}\naffiliated --version\n`,
      );
      const env = { ...process.env };
      delete env.NODE_OPTIONS;
      const version = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version;
      expect(execFileSync('bash', [script], { cwd: files.dir, env, encoding: 'utf8' }).trim()).to.equal(version);
    } finally {
      files.remove();
    }
  });
});

import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type { Io } from '../../cli/io.js';
import { plural, printLine, styled, visible } from '../../cli/output.js';

function io(tty: boolean, env: NodeJS.ProcessEnv): Io & { written: () => string } {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  let text = '';
  stdout.on('data', (chunk) => {
    text += chunk;
  });
  return { stdout, stderr: stdout, env, interactive: false, written: () => text };
}

const painted = (tty: boolean, env: NodeJS.ProcessEnv, ...parts: Parameters<typeof styled>) => {
  const out = io(tty, env);
  printLine(out, styled(...parts));
  return out.written();
};

describe('CLI output for people', () => {
  it('colours only on a terminal, and never with NO_COLOR or TERM=dumb', () => {
    expect(painted(true, {}, 'bold', 'ID')).to.equal('\u001b[1mID\u001b[22m\n');
    expect(painted(true, { NO_COLOR: '1' }, 'bold', 'ID')).to.equal('ID\n');
    expect(painted(true, { TERM: 'dumb' }, 'red', 'FAIL')).to.equal('FAIL\n');
    expect(painted(false, {}, 'green', 'ok')).to.equal('ok\n');
  });

  it('shows control characters instead of obeying them, and colours only what it was asked to', () => {
    expect(visible('a\u001b]0;owned\u0007b')).to.equal('a^[]0;owned^Gb');
    expect(visible('\u009b2J\u007f\r')).to.equal('^[[2J^?^M');
    expect(visible('x\u202Ey')).to.equal('x<U+202E>y');
    expect(visible('two\nlines\tand a tab')).to.equal('two\nlines\tand a tab');
    expect(visible('two\nlines\t', 'cell')).to.equal('two^Jlines^I');
    expect(visible('Ana Lima, ação, 日本, 😀')).to.equal('Ana Lima, ação, 日本, 😀');
    expect(painted(true, {}, 'red', 'bad \u001b[2J')).to.equal('\u001b[31mbad ^[[2J\u001b[39m\n');
  });

  it('says "1 affiliate", "2 affiliates" and "4,979 conversions"', () => {
    expect(plural(1, 'affiliate')).to.equal('1 affiliate');
    expect(plural(0, 'affiliate')).to.equal('0 affiliates');
    expect(plural(2, 'delivery', 'deliveries')).to.equal('2 deliveries');
    expect(plural(4979, 'conversion')).to.equal('4,979 conversions');
  });
});

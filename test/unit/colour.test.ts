import { PassThrough } from 'node:stream';
import { expect } from 'chai';
import type { Io } from '../../cli/io.js';
import { paint, plural } from '../../cli/output.js';

function io(tty: boolean, env: NodeJS.ProcessEnv): Io {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty });
  return { stdout, stderr: stdout, env, interactive: false };
}

describe('CLI output for people', () => {
  it('colours only on a terminal, and never with NO_COLOR or TERM=dumb', () => {
    expect(paint(io(true, {}), 'stdout', 'bold', 'ID')).to.equal('\u001b[1mID\u001b[22m');
    expect(paint(io(true, { NO_COLOR: '1' }), 'stdout', 'bold', 'ID')).to.equal('ID');
    expect(paint(io(true, { TERM: 'dumb' }), 'stdout', 'red', 'FAIL')).to.equal('FAIL');
    expect(paint(io(false, {}), 'stdout', 'green', 'ok')).to.equal('ok');
  });

  it('says "1 affiliate" and "2 affiliates"', () => {
    expect(plural(1, 'affiliate')).to.equal('1 affiliate');
    expect(plural(0, 'affiliate')).to.equal('0 affiliates');
    expect(plural(2, 'delivery', 'deliveries')).to.equal('2 deliveries');
  });
});

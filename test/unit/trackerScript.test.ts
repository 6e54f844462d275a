import { readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { TRACKER_SCRIPT_URL } from '../../server/services/trackerScript.js';

describe('the browser tracking script (server/sdk/tracker.js)', () => {
  const source = readFileSync(TRACKER_SCRIPT_URL, 'utf8');

  it('stays under 3 KB gzipped', () => {
    expect(gzipSync(source, { level: 9 }).length).to.be.below(3000);
  });

  it('is one classic script (no modules, no build step) that names no API key header', () => {
    expect(() => new Script(source, { filename: 'tracker.js' })).not.to.throw();
    expect(source).not.to.match(/\bimport\b|\bexport\b|x-api-key|afk_/i);
  });
});

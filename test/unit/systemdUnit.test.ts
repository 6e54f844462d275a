import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const UNIT = path.join(root, 'deploy/affiliated.service');

/** deploy/affiliated.service as systemd reads it (README, "Running under systemd"). */
describe('the systemd unit', () => {
  it('passes systemd-analyze verify with nothing to say', () => {
    // scripts/test-tools.sh installs Debian's systemd for it; no running systemd is needed.
    const result = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
    expect(result.error, 'systemd-analyze is missing: bash scripts/test-tools.sh installs it').to.equal(undefined);
    expect(`${result.stdout}${result.stderr}`.trim()).to.equal('');
    expect(result.status).to.equal(0);
  });

  it('runs as its own user, with the system read-only but its state folder, restarted on failure', () => {
    const settings = readFileSync(UNIT, 'utf8')
      .split('\n')
      .filter((line) => /^[A-Za-z]+=/.test(line));
    for (const setting of [
      'User=affiliated',
      'Group=affiliated',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'StateDirectory=affiliated',
      'WorkingDirectory=/var/lib/affiliated',
      'EnvironmentFile=/etc/affiliated/affiliated.env',
      'Restart=on-failure',
      'NoNewPrivileges=yes',
      'CapabilityBoundingSet=',
    ]) {
      expect(settings, setting).to.include(setting);
    }
  });
});

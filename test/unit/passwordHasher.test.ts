import bcrypt from 'bcrypt';
import { expect } from 'chai';
import { passwordHasher } from '../../server/services/passwordHasher.js';

describe('password hasher', () => {
  it('hashes every password it is given when more arrive than may run at once', async () => {
    const hasher = passwordHasher(4, 1);
    const passwords = Array.from({ length: 6 }, (_, i) => `secret-${i}`);
    const hashes = await Promise.all(passwords.map((p) => hasher.hash(p)));
    for (const [i, hash] of hashes.entries()) expect(await bcrypt.compare(passwords[i] ?? '', hash)).to.equal(true);
  });

  it('gives its turn back when a hash fails, so the next ones still run', async () => {
    const hasher = passwordHasher(4, 1);
    const failed = hasher.hash(undefined as unknown as string);
    const next = hasher.hash('secret-after');
    let failure: unknown;
    await failed.catch((err: unknown) => {
      failure = err;
    });
    expect(failure).to.be.instanceOf(Error);
    expect(await bcrypt.compare('secret-after', await next)).to.equal(true);
  });
});

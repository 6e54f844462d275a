import bcrypt from 'bcrypt';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Whether the password is the hash's; as slow as a hash, behind the same bound. */
  verify(password: string, hash: string): Promise<boolean>;
  /**
   * Spends the time of a `verify` without an account (an unknown e-mail at log-in): a hash made
   * once at this cost, so the answer comes in the time a real check takes.
   */
  verifyNothing(password: string): Promise<void>;
}

/**
 * bcrypt hashes on libuv's thread pool (4 threads). On a machine with few cores, four hashes
 * at once take every core from the event loop, and every request waits (docs/benchmarks.md:
 * single-event intake's p99 while 20 affiliates are created). At most `concurrency` hashes or
 * checks run at a time; the others queue here, in order, before reaching the pool.
 */
export function passwordHasher(rounds: number, concurrency: number): PasswordHasher {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  async function bounded<T>(work: () => Promise<T>): Promise<T> {
    if (running < concurrency) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      release();
    }
  }
  let decoy: Promise<string> | undefined;
  return {
    hash: (password) => bounded(() => bcrypt.hash(password, rounds)),
    verify: (password, hash) => bounded(() => bcrypt.compare(password, hash)),
    async verifyNothing(password) {
      decoy ??= bounded(() => bcrypt.hash('no account has this password', rounds));
      const hash = await decoy;
      await bounded(() => bcrypt.compare(password, hash));
    },
  };
}

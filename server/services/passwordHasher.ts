import bcrypt from 'bcrypt';

export interface PasswordHasher {
  hash(password: string): Promise<string>;
}

/**
 * bcrypt hashes on libuv's thread pool (4 threads). On a machine with few cores, four hashes
 * at once take every core from the event loop, and every request waits (docs/benchmarks.md:
 * single-event intake's p99 while 20 affiliates are created). At most `concurrency` hashes run
 * at a time; the others queue here, in order, before reaching the pool.
 */
export function passwordHasher(rounds: number, concurrency: number): PasswordHasher {
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return {
    async hash(password) {
      if (running < concurrency) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await bcrypt.hash(password, rounds);
      } finally {
        release();
      }
    },
  };
}

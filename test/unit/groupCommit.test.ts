import { expect } from 'chai';
import { createGroupCommitter, type Outcome } from '../../server/services/events/groupCommit.js';

/** The queue alone, with a flush that records what it was given (the database part is in test/integration/groupCommit.test.ts). */
describe('group commit queue', () => {
  function committer(
    flush: (jobs: readonly number[]) => Promise<Outcome<string>[]>,
    retryAlone: (err: unknown) => boolean = () => true,
  ) {
    return createGroupCommitter<number, string>(flush, { maxWeight: 10, weightOf: (job) => job, retryAlone });
  }
  const answer = (jobs: readonly number[]) => jobs.map((job): Outcome<string> => ({ ok: true, value: `job ${job}` }));

  it('writes what arrives during a flush in the next one, answering each job its own result', async () => {
    const flushes: number[][] = [];
    const queue = committer(async (jobs) => {
      flushes.push([...jobs]);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return answer(jobs);
    });
    const first = queue.submit(1);
    const rest = [queue.submit(2), queue.submit(3), queue.submit(4)];
    expect(await Promise.all([first, ...rest])).to.deep.equal(['job 1', 'job 2', 'job 3', 'job 4']);
    expect(flushes).to.deep.equal([[1], [2, 3, 4]]);
    expect(queue.stats()).to.deep.equal({ flushes: 2, jobs: 4, largest: 3 });
  });

  it('starts no flush while held, and stops a flush at its weight', async () => {
    const flushes: number[][] = [];
    const queue = committer(async (jobs) => {
      flushes.push([...jobs]);
      return answer(jobs);
    });
    const release = queue.hold();
    const replies = [6, 3, 2, 9].map((job) => queue.submit(job));
    await queue.queued(4);
    expect(flushes).to.deep.equal([]);
    release();
    await Promise.all(replies);
    expect(flushes).to.deep.equal([[6, 3], [2], [9]]);
  });

  it('writes jobs heavier than batchOver in a lane of their own: a light job never waits for their flush', async () => {
    const flushes: number[][] = [];
    let open = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const queue = createGroupCommitter<number, string>(
      async (jobs) => {
        flushes.push([...jobs]);
        if (jobs.includes(9)) await gate;
        return answer(jobs);
      },
      { maxWeight: 10, weightOf: (job) => job, retryAlone: () => true, batchOver: 5 },
    );
    const answered: string[] = [];
    const heavy = queue.submit(9).then((reply) => answered.push(reply));
    const light = [1, 2].map((job) => queue.submit(job).then((reply) => answered.push(reply)));
    await Promise.all(light);
    expect(answered, 'the light jobs are answered while the heavy one is being written').to.deep.equal([
      'job 1',
      'job 2',
    ]);
    open();
    await heavy;
    expect(flushes).to.deep.equal([[9], [1], [2]]);
    await queue.drained();
  });

  it('gives each job its own failure, and writes jobs alone when the shared flush fails', async () => {
    const flushes: number[][] = [];
    const queue = committer(async (jobs) => {
      flushes.push([...jobs]);
      if (jobs.includes(2) && jobs.length > 1) throw new Error('a statement job 2 broke');
      return jobs.map((job) =>
        job === 2 ? { ok: false, error: new Error('refused') } : { ok: true, value: `job ${job}` },
      );
    });
    const release = queue.hold();
    const replies = [1, 2, 3].map((job) => queue.submit(job).catch((err: Error) => err.message));
    await queue.queued(3);
    release();
    expect(await Promise.all(replies)).to.deep.equal(['job 1', 'refused', 'job 3']);
    expect(flushes).to.deep.equal([[1, 2, 3], [1], [2], [3]]);
  });

  it('fails every job of the flush at once when retrying alone is pointless', async () => {
    let calls = 0;
    const queue = committer(
      async () => {
        calls++;
        throw new Error('database unreachable');
      },
      () => false,
    );
    const release = queue.hold();
    const replies = [1, 2, 3].map((job) => queue.submit(job).catch((err: Error) => err.message));
    await queue.queued(3);
    release();
    expect(await Promise.all(replies)).to.deep.equal(Array(3).fill('database unreachable'));
    expect(calls).to.equal(1);
  });

  it('is drained only once every job it holds has its answer', async () => {
    let answered = 0;
    const queue = committer(async (jobs) => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      answered += jobs.length;
      return answer(jobs);
    });
    await queue.drained();
    const replies = [1, 2, 3].map((job) => queue.submit(job));
    await queue.drained();
    expect(answered).to.equal(3);
    await Promise.all(replies);
  });
});

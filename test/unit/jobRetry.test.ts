import { expect } from 'chai';
import { nextState } from '../../server/jobs/retry.js';

describe('job runtime: the retry schedule', () => {
  const now = new Date('2026-11-28T10:00:00Z');
  const policy = { scheduleMs: [1_000, 60_000], jitter: 0.1 };
  const later = (state: ReturnType<typeof nextState>) => (state.nextAttemptAt?.getTime() ?? 0) - now.getTime();

  it('waits the n-th entry after the n-th failure, plus at most its jitter share', () => {
    expect(later(nextState(policy, 0, { ok: false }, now, () => 0))).to.equal(1_000);
    expect(later(nextState(policy, 0, { ok: false }, now, () => 0.999999))).to.equal(1_099);
    expect(later(nextState(policy, 1, { ok: false }, now, () => 0.5))).to.equal(63_000);
    for (let i = 0; i < 200; i++) {
      const state = nextState(policy, 1, { ok: false }, now);
      expect(state.outcome).to.equal('retried');
      expect(later(state)).to.be.within(60_000, 65_999);
    }
  });

  it('keeps the schedule exact without jitter', () => {
    expect(later(nextState({ ...policy, jitter: 0 }, 1, { ok: false }, now, () => 0.9))).to.equal(60_000);
  });

  it('is dead after the last attempt, or at once when refused for good; done when it succeeds', () => {
    expect(nextState(policy, 2, { ok: false }, now)).to.deep.equal({ outcome: 'dead', nextAttemptAt: null });
    expect(nextState(policy, 0, { ok: false, permanent: true }, now)).to.deep.equal({
      outcome: 'dead',
      nextAttemptAt: null,
    });
    expect(nextState(policy, 2, { ok: true }, now)).to.deep.equal({ outcome: 'succeeded', nextAttemptAt: null });
  });
});

import { Counter, Histogram, type Registry } from 'prom-client';
import {
  PAYOUT_RAILS,
  type PayoutProvider,
  type PayoutProviders,
  type PayoutRail,
  type ProviderOutcome,
} from '../services/payouts/providers/index.js';

/** What a call to a provider was: a send of a batch, or a look-up of a sent payout. */
const OPERATIONS = ['send', 'lookup'] as const;
type Operation = (typeof OPERATIONS)[number];

/**
 * How a call ended. `answered`: the provider gave a clear word on every payout of the call (paid,
 * processing, failed, or for a look-up that it holds none); `ambiguous`: on at least one it gave
 * none (a timeout, a 5xx, a network error, a 429: the daemon looks it up before any resend);
 * `error`: the call threw, which a rail's client never does for anything the provider answers.
 */
const CALL_OUTCOMES = ['answered', 'ambiguous', 'error'] as const;
type CallOutcome = (typeof CALL_OUTCOMES)[number];

/** What the provider said of each payout a call carried. */
const PAYOUT_OUTCOMES = ['processing', 'paid', 'failed', 'ambiguous', 'unknown'] as const;
type PayoutOutcome = (typeof PAYOUT_OUTCOMES)[number];

/** From a loopback fake's millisecond to a provider that takes its whole timeout. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Decorates the payout provider registry so that every call it makes is counted and timed. */
export type ProviderCallCounter = (providers: PayoutProviders) => PayoutProviders;

/**
 * The provider-call metrics (docs/operations.md#metrics), registered in `registry`, and the
 * decorator that feeds them. Labels are the rail, the operation and an outcome, all from fixed
 * lists: never a payout, an affiliate or anything a provider answers.
 */
export function providerCallMetrics(registry: Registry, now: () => number = performanceNow): ProviderCallCounter {
  const registers = [registry];
  const calls = new Counter({
    name: 'affiliated_provider_calls_total',
    help: 'Calls to payout providers, by rail, operation (send, lookup) and outcome (answered, ambiguous, error)',
    labelNames: ['rail', 'operation', 'outcome'],
    registers,
  });
  const payouts = new Counter({
    name: 'affiliated_provider_payouts_total',
    help: 'Payouts carried by calls to payout providers, by rail, operation and what the provider said of each',
    labelNames: ['rail', 'operation', 'outcome'],
    registers,
  });
  const duration = new Histogram({
    name: 'affiliated_provider_call_duration_seconds',
    help: 'Time a call to a payout provider took, by rail and operation, whatever its outcome',
    labelNames: ['rail', 'operation'],
    buckets: DURATION_BUCKETS,
    registers,
  });
  // Every series from the start, so that a rate over an outcome that has not happened reads 0.
  for (const rail of PAYOUT_RAILS) {
    for (const operation of OPERATIONS) {
      for (const outcome of CALL_OUTCOMES) calls.inc({ rail, operation, outcome }, 0);
      for (const outcome of PAYOUT_OUTCOMES) payouts.inc({ rail, operation, outcome }, 0);
    }
  }

  const timed = async <T>(
    rail: PayoutRail,
    operation: Operation,
    call: () => Promise<T>,
    outcomes: (answer: T) => readonly PayoutOutcome[],
  ): Promise<T> => {
    const started = now();
    let outcome: CallOutcome = 'error';
    try {
      const answer = await call();
      const each = outcomes(answer);
      outcome = each.includes('ambiguous') ? 'ambiguous' : 'answered';
      for (const said of each) payouts.inc({ rail, operation, outcome: said });
      return answer;
    } finally {
      calls.inc({ rail, operation, outcome });
      duration.observe({ rail, operation }, (now() - started) / 1000);
    }
  };

  const counted = <R extends PayoutRail>(provider: PayoutProvider<R>): PayoutProvider<R> => ({
    rail: provider.rail,
    maxBatch: provider.maxBatch,
    send: (credentials, batch) =>
      timed(
        provider.rail,
        'send',
        () => provider.send(credentials, batch),
        (answers) => answers.map(statusOf),
      ),
    lookup: (credentials, sent) =>
      timed(
        provider.rail,
        'lookup',
        () => provider.lookup(credentials, sent),
        (answer) => [answer === 'unknown' ? 'unknown' : statusOf(answer)],
      ),
    ...(provider.lookupAll ? { lookupAll: lookupAllOf(provider, provider.lookupAll.bind(provider)) } : {}),
  });

  /** A batch's look-up is one call, counted once with an outcome per payout. */
  const lookupAllOf =
    <R extends PayoutRail>(provider: PayoutProvider<R>, lookupAll: NonNullable<PayoutProvider<R>['lookupAll']>) =>
    (credentials: Parameters<typeof lookupAll>[0], sent: Parameters<typeof lookupAll>[1]) =>
      timed(
        provider.rail,
        'lookup',
        () => lookupAll(credentials, sent),
        (answers) => answers.map((answer) => (answer === 'unknown' ? 'unknown' : statusOf(answer))),
      );

  return (providers) => ({
    pix: counted(providers.pix),
    paypal: counted(providers.paypal),
    stripe: counted(providers.stripe),
  });
}

const statusOf = (outcome: ProviderOutcome): PayoutOutcome => outcome.status;

const performanceNow = () => performance.now();

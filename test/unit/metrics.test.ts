import { expect } from 'chai';
import type { QueueFigures, RuntimeFigures } from '../../server/jobs/figures.js';
import { createLogger } from '../../server/logger.js';
import { createMetrics } from '../../server/metrics/metrics.js';
import { isLoopback } from '../../server/middleware/metricsEndpoint.js';
import { schemaMismatch } from '../../server/services/health.js';
import { MESSAGES } from '../../shared/errors.js';

/** A job runtime as metrics see it: figures the test sets, and how often they were asked for. */
class FakeRuntime implements RuntimeFigures {
  calls = 0;
  figures: QueueFigures[] = [];
  failure: Error | undefined;
  async queues(): Promise<readonly QueueFigures[]> {
    this.calls++;
    if (this.failure) throw this.failure;
    return this.figures;
  }
}

const queue = (name: string, depth: number, attempts: QueueFigures['attempts']): QueueFigures => ({
  queue: name,
  depth,
  oldestDueSeconds: depth * 1.5,
  dead: 1,
  attempts,
});

/** The sample lines of one metric, without HELP and TYPE. */
const samples = (body: string, name: string) =>
  body.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));

describe('metrics', () => {
  it("exports the job runtime's queues at scrape time, reading them once a scrape", async () => {
    const runtime = new FakeRuntime();
    const metrics = createMetrics({ logger: createLogger('silent'), runtime });
    runtime.figures = [
      queue('webhooks', 3, { succeeded: 10, retried: 2, dead: 1 }),
      queue('mail', 0, { succeeded: 4, retried: 0, dead: 0 }),
    ];
    const first = (await metrics.scrape()).body;
    expect(runtime.calls).to.equal(1);
    expect(samples(first, 'affiliated_queue_depth')).to.deep.equal([
      'affiliated_queue_depth{queue="webhooks"} 3',
      'affiliated_queue_depth{queue="mail"} 0',
    ]);
    expect(samples(first, 'affiliated_queue_oldest_due_seconds')).to.include(
      'affiliated_queue_oldest_due_seconds{queue="webhooks"} 4.5',
    );
    expect(samples(first, 'affiliated_queue_dead')).to.include('affiliated_queue_dead{queue="mail"} 1');
    expect(first).to.include('# TYPE affiliated_queue_attempts_total counter');
    expect(samples(first, 'affiliated_queue_attempts_total')).to.include.members([
      'affiliated_queue_attempts_total{queue="webhooks",outcome="succeeded"} 10',
      'affiliated_queue_attempts_total{queue="webhooks",outcome="retried"} 2',
      'affiliated_queue_attempts_total{queue="mail",outcome="dead"} 0',
    ]);

    // The next scrape says what the runtime says then: a queue it no longer names is gone.
    runtime.figures = [queue('webhooks', 1, { succeeded: 12, retried: 2, dead: 1 })];
    const second = (await metrics.scrape()).body;
    expect(runtime.calls).to.equal(2);
    expect(samples(second, 'affiliated_queue_depth')).to.deep.equal(['affiliated_queue_depth{queue="webhooks"} 1']);
    expect(samples(second, 'affiliated_queue_attempts_total')).to.include(
      'affiliated_queue_attempts_total{queue="webhooks",outcome="succeeded"} 12',
    );
  });

  it('leaves the queues out of a scrape the runtime cannot answer, and says so once in the log', async () => {
    const runtime = new FakeRuntime();
    const lines: string[] = [];
    const metrics = createMetrics({ logger: createLogger('warn', (line) => lines.push(line)), runtime });
    runtime.failure = new Error('database gone');
    const { body } = await metrics.scrape();
    expect(samples(body, 'affiliated_queue_depth')).to.deep.equal([]);
    expect(body).to.match(/^affiliated_events_accepted_total 0$/m);
    expect(lines.map((line) => JSON.parse(line).msg)).to.deep.equal([
      'metrics: the job runtime did not give its queue figures',
    ]);
  });

  it('has no queue series without a runtime; a method a client made up is one label', async () => {
    const metrics = createMetrics({ logger: createLogger('silent') });
    metrics.request('BREW', 'unmatched', 501, 0.002);
    metrics.request('GET', '/v1/affiliates/:id', 200, 0.002);
    const { body, contentType } = await metrics.scrape();
    expect(contentType).to.match(/^text\/plain; version=0\.0\.4/);
    expect(body).not.to.include('affiliated_queue_');
    expect(samples(body, 'affiliated_http_requests_total')).to.deep.equal([
      'affiliated_http_requests_total{method="other",route="unmatched",status="501"} 1',
      'affiliated_http_requests_total{method="GET",route="/v1/affiliates/:id",status="200"} 1',
    ]);
    expect(samples(body, 'affiliated_http_request_duration_seconds_bucket')).to.include(
      'affiliated_http_request_duration_seconds_bucket{le="0.0025",method="GET",route="/v1/affiliates/:id"} 1',
    );
    expect(body).to.match(/^process_cpu_user_seconds_total \d/m);
  });

  it('counts intake: events accepted, skipped by reason, refused, and group-commit sizes', async () => {
    const metrics = createMetrics({ logger: createLogger('silent') });
    metrics.observer.intakeFlushed(3, 7);
    metrics.observer.eventsStored(2, [{ reason: 'duplicate_event_id' }, { reason: 'unknown_affiliate' }]);
    metrics.observer.eventsStored(1, [{ reason: 'unknown_affiliate' }]);
    metrics.observer.eventsRefused('monthly_limit', 4);
    const { body } = await metrics.scrape();
    expect(body).to.match(/^affiliated_events_accepted_total 3$/m);
    expect(samples(body, 'affiliated_events_skipped_total')).to.include.members([
      'affiliated_events_skipped_total{reason="unknown_affiliate"} 2',
      'affiliated_events_skipped_total{reason="duplicate_event_id"} 1',
      'affiliated_events_skipped_total{reason="recurring_limit_reached"} 0',
    ]);
    expect(body).to.match(/^affiliated_events_refused_total\{reason="monthly_limit"\} 4$/m);
    expect(body).to.match(/^affiliated_intake_flush_requests_sum 3$/m);
    expect(body).to.match(/^affiliated_intake_flush_events_bucket\{le="10"\} 1$/m);
  });
});

describe('metrics: who may scrape', () => {
  it('takes 127.0.0.0/8, ::1 and 127.x mapped into IPv6 as loopback, nothing else', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', '::ffff:127.0.0.1']) {
      expect(isLoopback(address), address).to.equal(true);
    }
    for (const address of ['192.0.2.2', '::ffff:192.0.2.2', 'fd00::2', '0.0.0.0', '', 'localhost', '127.0.0.1.evil']) {
      expect(isLoopback(address), address).to.equal(false);
    }
  });
});

describe('readiness: the schema', () => {
  const known = ['a_1', 'b_2', 'c_3'];
  it("is this build's only when every known migration is applied and nothing else", () => {
    expect(schemaMismatch(known, known)).to.equal(undefined);
    expect(schemaMismatch(['a_1', 'b_2'], known)).to.equal(MESSAGES.notReadyPending('c_3'));
    expect(schemaMismatch([], known)).to.equal(MESSAGES.notReadyPending('a_1'));
    expect(schemaMismatch([...known, 'd_4', 'e_5'], known)).to.equal(MESSAGES.notReadyNewer('e_5', 'c_3'));
    // A contract step not yet applied is this build's schema all the same; applied, it is known.
    expect(schemaMismatch(['a_1', 'b_2'], known, new Set(['c_3']))).to.equal(undefined);
    expect(schemaMismatch(known, known, new Set(['c_3']))).to.equal(undefined);
  });
});

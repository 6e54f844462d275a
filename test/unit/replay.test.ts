import { expect } from 'chai';
import type { Clock } from '../../cli/commands/events/replay/clock.js';
import { BatchEvents, BodyPool } from '../../cli/commands/events/replay/body.js';
import { deliver, splitIndexedMessage } from '../../cli/commands/events/replay/deliver.js';
import { deriveEventId, judgeLine, withEventId } from '../../cli/commands/events/replay/judge.js';
import { Pacer } from '../../cli/commands/events/replay/pacer.js';
import { StopRun } from '../../cli/commands/events/replay/stop.js';
import { retryingTransport, type Transport } from '../../cli/commands/events/replay/transport.js';
import type { ApiClient, Reply } from '../../shared/client/index.js';
import { ApiError, ConnectionError, RawJsonBody } from '../../shared/client/index.js';
import type { EventsResponse } from '../../shared/schemas/event.js';

/** A clock that never waits: sleeping moves time on and is recorded. */
function fakeClock(): Clock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

type Answer = EventsResponse | ApiError | Error;

/** What the daemon would parse: the body must be one JSON document holding every event. */
function eventsOf(body: string | Uint8Array): object[] {
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  const parsed = JSON.parse(text) as { batch: boolean; events: object[] };
  expect(parsed.batch).to.equal(true);
  return parsed.events;
}

/** A client whose `POST /v1/events` answers from a script and records each batch it got, parsed. */
function scriptedClient(answers: Answer[], rateLimit: Reply<EventsResponse>['rateLimit'] = {}) {
  const batches: object[][] = [];
  const client = {
    baseUrl: 'http://test',
    request: async (_route: unknown, input: { body: RawJsonBody }) => {
      batches.push(eventsOf(input.body.content));
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no scripted answer left');
      if (answer instanceof Error) throw answer;
      return { statusCode: 200, body: answer, rateLimit };
    },
  } as unknown as ApiClient;
  return { client, batches };
}

const ok = (received: number, skipped: EventsResponse['skipped'] = []): EventsResponse => ({
  success: true,
  received,
  accepted: received - skipped.length,
  skipped,
});

/** A transport that refuses, with 400 and no index in the message, every batch holding a bad event. */
function pickyTransport(bad: Set<number>): Transport & { calls: number } {
  const transport = {
    calls: 0,
    stats: { requests: 0, rateLimited: 0, serverErrors: 0, networkErrors: 0 },
    async post(body: Uint8Array) {
      transport.calls++;
      const events = eventsOf(body);
      const ids = events.map((e) => (e as { n: number }).n);
      if (ids.some((n) => bad.has(n))) throw new ApiError(400, ['something in this batch is wrong']);
      return ok(events.length);
    },
  };
  return transport;
}

/** A batch of events `{ "n": line }`, one a line. */
function pending(lines: number[]): BatchEvents {
  const events = new BatchEvents(new BodyPool());
  for (const line of lines) events.add(line, JSON.stringify({ n: line }), 0);
  return events;
}
const EMPTY_BATCH = Buffer.from('{"batch":true,"events":[]}');

/** The event a judged line sends, parsed as the daemon parses it. */
function sentEvent(judged: ReturnType<typeof judgeLine>): Record<string, unknown> {
  if (judged.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(judged)}`);
  return JSON.parse(judged.json) as Record<string, unknown>;
}

describe('replay: lines and ids', () => {
  it('derives the same event_id for the same line, a different one elsewhere', () => {
    const text = '{"event_type":"page_view","campaign_id":"c","affiliate_id":"A"}';
    expect(deriveEventId(3, text)).to.equal(deriveEventId(3, `  ${text}  `));
    expect(deriveEventId(3, text)).not.to.equal(deriveEventId(4, text));
    expect(deriveEventId(3, text).length).to.be.at.most(128);
    expect(sentEvent(judgeLine(3, text))).to.deep.equal({ event_id: deriveEventId(3, text), ...JSON.parse(text) });
  });

  it('keeps an event_id the line already has, and sends such a line exactly as written', () => {
    const text = ' { "event_type" : "conversion", "event_id": "mine", "properties": {"order_value": 49.90} }';
    expect(judgeLine(1, text)).to.deep.equal({ kind: 'event', json: text });
  });

  it('writes a derived event_id into the line itself, whatever its spacing', () => {
    for (const text of ['{}', '{ }', '\t{\r\n}', ' {"a":1} ', '{"a":{"b":[1,{}]}}', '{"x":"{"}']) {
      const json = withEventId(text, 'replay_x');
      expect(JSON.parse(json), text).to.deep.equal({ event_id: 'replay_x', ...JSON.parse(text) });
      // The rest of the line is untouched: the daemon judges what the file says.
      expect(json.replace('"event_id":"replay_x"', '').replace(/^(\s*\{),/, '$1'), text).to.equal(text);
    }
  });

  it('judges here only what the daemon could not name: JSON, an object, another campaign', () => {
    const line = (fields: object) => JSON.stringify({ event_type: 'page_view', affiliate_id: 'A', ...fields });
    expect(judgeLine(1, '{"event_type": ')).to.deep.equal({ kind: 'rejected', reasons: ['line is not valid JSON'] });
    expect(judgeLine(1, '[1]')).to.deep.equal({ kind: 'rejected', reasons: ['line must be a JSON object'] });
    expect(judgeLine(1, '"text"')).to.deep.equal({ kind: 'rejected', reasons: ['line must be a JSON object'] });
    expect(judgeLine(1, '   ')).to.deep.equal({ kind: 'blank' });
    expect(judgeLine(1, line({ campaign_id: 'other' }), { campaign: 'shop' })).to.deep.equal({
      kind: 'rejected',
      reasons: [`campaign_id must be the public id of the API key's campaign ("shop")`],
    });
    // The schema is the daemon's to judge: these go out, and come back refused with its reasons.
    expect(judgeLine(1, line({ campaign_id: 'shop', event_type: 'click' }), { campaign: 'shop' }).kind).to.equal(
      'event',
    );
    expect(judgeLine(1, line({ campaign_id: 7 }), { campaign: 'shop' }).kind).to.equal('event');
    expect(judgeLine(1, line({ campaign_id: 'x'.repeat(65) }), { campaign: 'shop' }).kind).to.equal('event');
  });

  it('checks the whole schema when asked (a dry run, which has no daemon)', () => {
    const click = JSON.stringify({ event_type: 'click', campaign_id: 'shop', affiliate_id: 'A' });
    expect(judgeLine(1, click, { schema: true })).to.deep.equal({
      kind: 'rejected',
      reasons: ['event_type must be one of the following values: conversion, lead, page_view'],
    });
  });

  it('reads server messages that name an event', () => {
    expect(splitIndexedMessage('events.3.properties.order_value must be a positive number')).to.deep.equal({
      index: 3,
      reason: 'properties.order_value must be a positive number',
    });
    expect(splitIndexedMessage('property events.12.foo should not exist')).to.deep.equal({
      index: 12,
      reason: 'property foo should not exist',
    });
    expect(splitIndexedMessage('body must be an object')).to.equal(undefined);
  });
});

describe('replay: splitting a refused batch', () => {
  it('bisects a 400 without indices until the bad lines stand alone', async () => {
    const transport = pickyTransport(new Set([3, 6]));
    const result = await deliver(pending([1, 2, 3, 4, 5, 6, 7, 8]), transport);
    expect(result.accepted).to.equal(6);
    expect(result.rejected).to.deep.equal([
      { line: 3, reasons: ['something in this batch is wrong'] },
      { line: 6, reasons: ['something in this batch is wrong'] },
    ]);
    // Far fewer requests than one per event.
    expect(transport.calls).to.be.below(12);
  });

  it('uses the indices a 400 names, then sends the rest in one request', async () => {
    const { client, batches } = scriptedClient([
      new ApiError(400, [
        'events.1.properties.order_value must be a positive number',
        'property events.3.foo should not exist',
      ]),
      ok(3, [{ index: 2, reason: 'unknown_affiliate' }]),
    ]);
    const transport = retryingTransport(client, new Pacer(fakeClock()), fakeClock(), () => {});
    const result = await deliver(pending([10, 11, 12, 13, 14]), transport);
    expect(result).to.deep.equal({
      accepted: 2,
      skipped: [{ line: 14, reason: 'unknown_affiliate' }],
      rejected: [
        { line: 11, reasons: ['properties.order_value must be a positive number'] },
        { line: 13, reasons: ['property foo should not exist'] },
      ],
    });
    expect(batches.map((b) => b.map((e) => (e as { n: number }).n))).to.deep.equal([
      [10, 11, 12, 13, 14],
      [10, 12, 14],
    ]);
  });
});

describe('replay: retries and pacing', () => {
  it('retries 5xx and network failures with 1 s, 2 s, 4 s ... backoff', async () => {
    const clock = fakeClock();
    const { client } = scriptedClient([
      new ApiError(503, ['Service Unavailable']),
      new ConnectionError('cannot reach the daemon', 'ECONNRESET'),
      new ApiError(500, ['Internal server error']),
      ok(1),
    ]);
    const transport = retryingTransport(client, new Pacer(clock), clock, () => {});
    expect(await transport.post(EMPTY_BATCH)).to.deep.equal(ok(1));
    expect(clock.slept).to.deep.equal([1000, 2000, 4000]);
    expect(transport.stats).to.deep.include({ requests: 4, serverErrors: 2, networkErrors: 1 });
  });

  it('gives up after repeated server failures', async () => {
    const clock = fakeClock();
    const failures = Array.from({ length: 10 }, () => new ApiError(502, ['Bad Gateway']));
    const transport = retryingTransport(scriptedClient(failures).client, new Pacer(clock), clock, () => {});
    const err = await transport.post(EMPTY_BATCH).catch((e) => e);
    expect(err).to.be.instanceOf(StopRun);
    expect(err.reason).to.equal('server_error');
  });

  it('waits Retry-After on a 429, else 1 s, 2 s, 4 s', async () => {
    const tooMany = (retryAfter?: number) =>
      new ApiError(429, ['ThrottlerException: Too Many Requests'], {}, retryAfter);
    const clock = fakeClock();
    const said: string[] = [];
    const { client } = scriptedClient([tooMany(), tooMany(), tooMany(), ok(1)]);
    await retryingTransport(client, new Pacer(clock), clock, (text) => said.push(text)).post(EMPTY_BATCH);
    expect(clock.slept).to.deep.equal([1000, 2000, 4000]);
    expect(said).to.have.length(3);

    const patient = fakeClock();
    const told = scriptedClient([tooMany(7), ok(1)]);
    await retryingTransport(told.client, new Pacer(patient), patient, () => {}).post(EMPTY_BATCH);
    expect(patient.slept).to.deep.equal([7000]);
  });

  it('stops at once on 401 and 403', async () => {
    for (const [status, reason] of [
      [401, 'unauthorized'],
      [403, 'forbidden'],
    ] as const) {
      const clock = fakeClock();
      const { client, batches } = scriptedClient([new ApiError(status, ['nope']), ok(1)]);
      const err = await retryingTransport(client, new Pacer(clock), clock, () => {})
        .post(EMPTY_BATCH)
        .catch((e) => e);
      expect(err).to.be.instanceOf(StopRun);
      expect(err).to.include({ reason, statusCode: status });
      expect(batches).to.have.length(1);
      expect(clock.slept).to.deep.equal([]);
    }
  });

  it('waits for the window to reset when no request is left in it', async () => {
    const clock = fakeClock();
    const { client } = scriptedClient([ok(1), ok(1)], { limit: 3, remaining: 0, resetSeconds: 2 });
    const pacer = new Pacer(clock);
    const transport = retryingTransport(client, pacer, clock, () => {});
    await transport.post(EMPTY_BATCH);
    expect(clock.slept).to.deep.equal([]);
    await transport.post(EMPTY_BATCH);
    expect(clock.slept).to.deep.equal([2000]);
    expect(pacer.waits).to.equal(1);
  });
});

describe('replay: pacing several requests in flight', () => {
  it('lets out only as many requests as the window has room for, then waits for the reset', async () => {
    const clock = fakeClock();
    const waits: (number | undefined)[] = [];
    const pacer = new Pacer(clock, (until) => waits.push(until));
    await pacer.acquire();
    pacer.observe({ limit: 3, remaining: 2, resetSeconds: 5 });
    pacer.release();
    // Two left in this window: two go out together, the third waits for the reset.
    await pacer.acquire();
    await pacer.acquire();
    expect(clock.slept).to.deep.equal([]);
    const third = pacer.acquire();
    pacer.observe({ limit: 3, remaining: 0, resetSeconds: 5 });
    pacer.release();
    pacer.release();
    await third;
    expect(clock.slept).to.deep.equal([5000]);
    expect(pacer.waitedMs).to.equal(5000);
    expect(pacer.limit).to.equal(3);
    expect(waits).to.deep.equal([5000, undefined]);
  });

  it('serves requests in the order they asked, and a Ctrl-C cuts a wait short', async () => {
    const clock = fakeClock();
    const pacer = new Pacer(clock);
    pacer.holdFor(2000);
    const order: number[] = [];
    const controller = new AbortController();
    const first = pacer.acquire().then(() => order.push(1));
    const second = pacer.acquire().then(() => order.push(2));
    await Promise.all([first, second]);
    expect(order).to.deep.equal([1, 2]);
    pacer.holdFor(1000);
    controller.abort();
    const err = await pacer.acquire(controller.signal).catch((e) => e);
    expect((err as Error).name).to.equal('AbortError');
  });
});

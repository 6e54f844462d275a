import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import { clientEnv, parseJson, runCliInProcess } from '../helpers/cli.js';
import { useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { Receiver, sleep } from '../helpers/receiver.js';
import { tempDir } from '../helpers/replay.js';

describe(`webhooks commands, in-process CLI against a real daemon (${ENGINE})`, () => {
  const t = useTestDaemon({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_MS: '50' });
  let files: ReturnType<typeof tempDir>;
  let env: Record<string, string | undefined>;
  let receiver: Receiver;
  const cli = (args: string[]) => runCliInProcess(args, { env });

  beforeEach(async () => {
    files = tempDir();
    env = clientEnv(files.file('config.json'), { baseUrl: t.url, apiKey: t.merchant.key });
    receiver = await new Receiver().start();
  });
  afterEach(async () => {
    files.remove();
    await receiver.stop();
  });

  it('add prints the secret once; list, get, update, test, deliveries, retry, rotate-secret, remove', async () => {
    const added = await cli([
      'webhooks',
      'add',
      receiver.url,
      '--events',
      'affiliate.created,payout.paid',
      '--description',
      'CRM',
    ]);
    expect(added.code, added.stderr).to.equal(0);
    const secret = added.stdout.trim();
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(added.stderr).to.match(/Webhook \d+ sends affiliate.created, payout.paid to .* It is shown once/s);
    const id = Number(/Webhook (\d+)/.exec(added.stderr)?.[1]);

    const listed = parseJson(await cli(['webhooks', 'list', '--json']));
    expect(listed.total).to.equal(1);
    expect(JSON.stringify(listed)).to.not.include(secret.slice(6));
    const shown = await cli(['webhooks', 'get', String(id)]);
    expect(shown.stdout).to.match(/events:\s+affiliate.created, payout.paid/);
    expect(shown.stdout).to.not.include(secret.slice(6));

    const updated = parseJson(await cli(['webhooks', 'update', String(id), '--description', '', '--json']));
    expect(updated).to.include({ id, description: null, status: 'enabled' });

    const sent = parseJson(await cli(['webhooks', 'test', String(id), '--json']));
    expect(sent).to.include({ eventType: 'webhook.test', status: 'pending' });
    await receiver.waitFor(1);
    let deliveries = parseJson(await cli(['webhooks', 'deliveries', String(id), '--json']));
    for (let i = 0; deliveries.deliveries[0]?.status !== 'succeeded' && i < 100; i++) {
      await sleep(50);
      deliveries = parseJson(await cli(['webhooks', 'deliveries', String(id), '--json']));
    }
    expect(deliveries.deliveries[0]).to.include({ id: sent.id, status: 'succeeded' });
    const table = await cli(['webhooks', 'deliveries', String(id)]);
    expect(table.stdout).to.match(new RegExp(`${sent.id}\\s+webhook.test\\s+msg_\\S+\\s+succeeded\\s+1\\s+HTTP 200`));

    const retried = await cli(['webhooks', 'retry', String(id), String(sent.id)]);
    expect(retried.stdout).to.include(`Delivery ${sent.id} is due now`);
    await receiver.waitFor(2);

    const rotated = await cli(['webhooks', 'rotate-secret', String(id)]);
    expect(rotated.code).to.equal(0);
    expect(rotated.stdout.trim())
      .to.match(/^whsec_/)
      .and.not.equal(secret);
    expect(rotated.stderr).to.include('the old one keeps signing for 24 hours');

    const refused = await cli(['webhooks', 'remove', String(id)]);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.include('--yes is required when not running interactively');
    const removed = parseJson(await cli(['webhooks', 'remove', String(id), '--yes', '--json']));
    expect(removed).to.deep.equal({ success: true, message: 'Webhook deleted successfully' });
    const gone = await cli(['webhooks', 'get', String(id)]);
    expect(gone.code).to.equal(1);
    expect(gone.stderr).to.include('error 404: Webhook not found');
  });

  it('usage errors: unknown event types, nothing to update', async () => {
    const bad = await cli(['webhooks', 'add', receiver.url, '--events', 'affiliate.created,affiliate.eaten']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.include('must be a comma-separated list of: affiliate.created');
    const nothing = await cli(['webhooks', 'update', '1']);
    expect(nothing.code).to.equal(2);
    expect(nothing.stderr).to.include('nothing to update');
  });

  it('verify checks a captured request: 0 when the signature holds, 1 when the body was changed', async () => {
    const secret = (await cli(['webhooks', 'add', receiver.url, '--events', 'affiliate.created'])).stdout.trim();
    const id = parseJson(await cli(['webhooks', 'list', '--json'])).webhooks[0].id;
    await cli(['webhooks', 'test', String(id)]);
    const [request] = await receiver.waitFor(1);
    if (!request) throw new Error('no request');
    const body = files.file('body.json');
    writeFileSync(body, request.body);
    const headers = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].flatMap((name) => [
      '--header',
      `${name}: ${request.headers[name]}`,
    ]);
    const ok = await cli(['webhooks', 'verify', '--secret', secret, '--body', body, ...headers, '--max-age', '300']);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).to.match(/^Valid: signed by this secret \d+ s ago\./);
    const json = parseJson(await cli(['webhooks', 'verify', '--secret', secret, '--body', body, ...headers, '--json']));
    expect(json).to.include({ valid: true, webhookId: request.headers['webhook-id'] });

    writeFileSync(body, request.body.replace('webhook.test', 'webhook.tesT'));
    const tampered = await cli(['webhooks', 'verify', '--secret', secret, '--body', body, ...headers]);
    expect(tampered.code).to.equal(1);
    expect(tampered.stderr).to.include('Not valid: no signature matches this secret and body.');
  });
});

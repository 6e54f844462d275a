import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.js';
import { DAY_ROWS } from '../../server/repositories/analytics.js';
import { insertClicks, type NewClick } from '../../server/repositories/clicks.js';
import { newClickId } from '../../server/services/clicks/clickId.js';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';

describe(`GET /r/{campaignPublicId}/{code} (${ENGINE})`, () => {
  const t = useTestDaemon();
  let code: string;
  let affiliateId: number;

  const follow = (path: string, headers: Record<string, string> = { 'user-agent': FIREFOX }, method = 'GET') =>
    call(t.url, method, path, { headers });
  const clicks = () => t.db('clicks').orderBy('id').select();
  /** The campaign's clicks and bots' clicks in the rollup's hour rows, or its day rows. */
  const rollupSums = async (days: boolean) => {
    const row = await t
      .db('analytics_hourly')
      .where('campaign_id', t.merchant.campaignId)
      .andWhere('hour', days ? '>=' : '<', DAY_ROWS)
      .sum({ clicks: 'clicks', bots: 'bot_clicks' })
      .first();
    return { clicks: Number(row?.clicks ?? 0), bots: Number(row?.bots ?? 0) };
  };

  beforeEach(async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, {
      siteUrl: 'https://shop.example/landing?lang=pt',
    });
    ({ code, id: affiliateId } = await addAffiliate(t.db, t.merchant.campaignId));
  });

  it('records the click and sends the visitor to the site with ref and click_id, its own query kept', async () => {
    const reply = await follow(`/r/${t.merchant.publicId}/${code.toLowerCase()}?utm_source=news&utm_medium=email`, {
      'user-agent': IPHONE,
      referer: 'https://Blog.Example/post/1?x=y',
    });
    expect(reply.status).to.equal(302);
    expect(reply.headers['cache-control']).to.equal('no-store');
    const location = new URL(String(reply.headers.location));
    expect(location.origin + location.pathname).to.equal('https://shop.example/landing');
    expect(location.searchParams.get('lang')).to.equal('pt');
    expect(location.searchParams.get('ref')).to.equal(code.toLowerCase());
    expect(location.searchParams.get('utm_source')).to.equal('news');
    const clickId = location.searchParams.get('click_id');
    expect(clickId).to.match(/^[0-9A-Z]{26}$/);
    const rows = await clicks();
    expect(rows).to.have.length(1);
    expect(rows[0]).to.deep.include({
      id: clickId,
      campaign_id: t.merchant.campaignId,
      affiliate_id: affiliateId,
      device: 'mobile',
      browser: 'Mobile Safari',
      os: 'iOS',
      country: null,
      referrer: 'blog.example',
      utm_source: 'news',
      utm_medium: 'email',
      utm_campaign: null,
    });
    expect(Boolean(rows[0]?.bot)).to.equal(false);
  });

  it('gives each click of one link its own click_id, before the site’s fragment and in place of its own', async () => {
    const follows = async (siteUrl: string) => {
      await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { siteUrl });
      // A new code: its link is read afresh (links are remembered for 30 s).
      const linkCode = (await addAffiliate(t.db, t.merchant.campaignId)).code;
      const link = `/r/${t.merchant.publicId}/${linkCode}?utm_source=a%20b`;
      const first = String((await follow(link)).headers.location);
      const second = String((await follow(link)).headers.location);
      return { linkCode, locations: [first, second] };
    };
    const before = (await clicks()).length;
    const fragment = await follows('https://shop.example/p?x=1%202#top');
    const ownId = await follows('https://shop.example/p?click_id=site&x=1#top');
    const [a, b, c, d] = (await clicks()).slice(before).map((row: { id: string }) => row.id);
    expect(fragment.locations).to.have.members([
      `https://shop.example/p?x=1+2&utm_source=a+b&ref=${fragment.linkCode}&click_id=${a}#top`,
      `https://shop.example/p?x=1+2&utm_source=a+b&ref=${fragment.linkCode}&click_id=${b}#top`,
    ]);
    expect(ownId.locations).to.have.members([
      `https://shop.example/p?click_id=${c}&x=1&utm_source=a+b&ref=${ownId.linkCode}#top`,
      `https://shop.example/p?click_id=${d}&x=1&utm_source=a+b&ref=${ownId.linkCode}#top`,
    ]);
  });

  it('flags bots and scripts without an agent, and still sends them on', async () => {
    const bot = await follow(`/r/${t.merchant.publicId}/${code}`, { 'user-agent': GOOGLEBOT });
    const bare = await follow(`/r/${t.merchant.publicId}/${code}`, {});
    const person = await follow(`/r/${t.merchant.publicId}/${code}`);
    for (const reply of [bot, bare, person]) expect(reply.status).to.equal(302);
    const rows = await clicks();
    expect(rows.map((row) => [Boolean(row.bot), row.device])).to.deep.equal([
      [true, 'bot'],
      [true, 'bot'],
      [false, 'desktop'],
    ]);
    expect(rows[2]).to.deep.include({ browser: 'Firefox', os: 'Linux' });
  });

  it('sends unknown, pending and inactive codes to the site unmarked, and records nothing', async () => {
    const inactive = await addAffiliate(t.db, t.merchant.campaignId, { status: 'inactive' });
    const pending = await addAffiliate(t.db, t.merchant.campaignId, { status: 'pending' });
    for (const name of ['NOSUCHCODE', inactive.code, pending.code, 'bad code!']) {
      const reply = await follow(`/r/${t.merchant.publicId}/${encodeURIComponent(name)}?utm_source=x`);
      expect(reply.status, name).to.equal(302);
      expect(reply.headers.location).to.equal('https://shop.example/landing?lang=pt');
    }
    expect(await clicks()).to.deep.equal([]);
  });

  it('a code of another campaign is unknown in this one', async () => {
    const other = await servicesFor(t.db).campaigns.create({ name: 'Other', plan: 'unlimited' });
    const theirs = await addAffiliate(t.db, other.id);
    const reply = await follow(`/r/${t.merchant.publicId}/${theirs.code}`);
    expect(reply.headers.location).to.equal('https://shop.example/landing?lang=pt');
    expect(await clicks()).to.deep.equal([]);
  });

  it('answers an unknown campaign, or one without a site, with the spec error body', async () => {
    const unknown = await follow(`/r/no-such-campaign/${code}`);
    expect(unknown.status).to.equal(404);
    expect(unknown.body).to.deep.equal({
      statusCode: 404,
      message: MESSAGES.linkCampaignNotFound,
      error: 'Not Found',
    });
    const bare = await servicesFor(t.db).campaigns.create({ name: 'Bare', plan: 'unlimited' });
    const theirs = await addAffiliate(t.db, bare.id);
    const noSite = await follow(`/r/${bare.publicId}/${theirs.code}`);
    expect(noSite.status).to.equal(404);
    expect(noSite.body).to.deep.equal({ statusCode: 404, message: MESSAGES.linkWithoutSite, error: 'Not Found' });
    expect(await clicks()).to.deep.equal([]);
  });

  it('answers HEAD without counting it, and other methods with 405', async () => {
    const head = await follow(`/r/${t.merchant.publicId}/${code}`, { 'user-agent': FIREFOX }, 'HEAD');
    expect(head.status).to.equal(302);
    expect(new URL(String(head.headers.location)).searchParams.get('click_id')).to.equal(null);
    const post = await follow(`/r/${t.merchant.publicId}/${code}`, {}, 'POST');
    expect(post.status).to.equal(405);
    expect(post.headers.allow).to.equal('GET, HEAD');
    expect(post.body).to.have.property('statusCode', 405);
    expect(await clicks()).to.deep.equal([]);
  });

  it('keeps every click of a burst, each with its own id', async () => {
    const replies = await Promise.all(Array.from({ length: 40 }, () => follow(`/r/${t.merchant.publicId}/${code}`)));
    const ids = replies.map((reply) => new URL(String(reply.headers.location)).searchParams.get('click_id'));
    expect(new Set(ids).size).to.equal(40);
    expect((await clicks()).map((row) => row.id).sort()).to.deep.equal([...ids].sort());
  });

  it('counts a burst over several links once each in the rollup, by hour and by day, as soon as it is read', async () => {
    const other = await addAffiliate(t.db, t.merchant.campaignId);
    const agents = [FIREFOX, IPHONE];
    // Enough at once to be written in several flushes that add to the same rollup rows.
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        follow(`/r/${t.merchant.publicId}/${i % 2 ? code : other.code}?utm_source=s${i % 3}`, {
          'user-agent': agents[i % agents.length] ?? FIREFOX,
        }),
      ),
    );
    expect(replies.every((reply) => reply.status === 302)).to.equal(true);
    expect(await clicks()).to.have.length(200);
    // Read at once, whatever the periodic fold has done yet: the read folds what is pending first.
    const analytics = await call(t.url, 'GET', '/v1/analytics?metrics=clicks&interval=day', { key: t.merchant.key });
    expect(analytics.status).to.equal(200);
    expect(analytics.body.totals).to.deep.equal({ clicks: 200 });
    expect(await t.db('clicks').where('rollup_pending', true).count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    expect(await rollupSums(false), 'hour rows').to.deep.equal({ clicks: 200, bots: 0 });
    expect(await rollupSums(true), 'day rows').to.deep.equal({ clicks: 200, bots: 0 });
  });

  it('folds each click into the rollup once, however many folds run at once', async () => {
    const other = await addAffiliate(t.db, t.merchant.campaignId);
    const at = Date.now();
    // Stored pending at once, more than two batches of the fold, over two affiliates and both kinds.
    const stored: NewClick[] = Array.from({ length: 1_200 }, (_, i) => ({
      id: newClickId(new Date(at + i)),
      campaignId: t.merchant.campaignId,
      affiliateId: i % 2 ? affiliateId : other.id,
      createdAt: new Date(at + i),
      bot: i % 10 === 0,
      device: i % 3 ? 'desktop' : 'mobile',
      browser: 'Firefox',
      os: 'Linux',
      country: null,
      referrer: null,
      utm: { utm_source: `s${i % 4}`, utm_medium: null, utm_campaign: null, utm_term: null, utm_content: null },
    }));
    await t.db.transaction((trx) => insertClicks(trx, stored, true));
    // Two daemons' periodic folds and a read's, beside this daemon's own.
    const [one, two] = [servicesFor(t.db), servicesFor(t.db)];
    const signal = new AbortController().signal;
    await Promise.all([
      one.clicks.fold.job.run(signal),
      two.clicks.fold.job.run(signal),
      one.clicks.fold.campaign(t.merchant.campaignId),
    ]);
    expect(await t.db('clicks').where('rollup_pending', true).count({ n: '*' }).first()).to.deep.equal({ n: 0 });
    expect(await rollupSums(false), 'hour rows').to.deep.equal({ clicks: 1_080, bots: 120 });
    expect(await rollupSums(true), 'day rows').to.deep.equal({ clicks: 1_080, bots: 120 });
    // Nothing is left to fold: another run adds nothing.
    expect(await two.clicks.fold.job.run(signal)).to.equal(0);
    expect(await rollupSums(false)).to.deep.equal({ clicks: 1_080, bots: 120 });
    // Each instance counts the clicks it folded itself: between them, every click once.
    const folded = await Promise.all(
      [one, two].map(async (services) =>
        (await services.jobs.figures().queues()).find((q) => q.queue === 'click-rollup'),
      ),
    );
    expect(folded.reduce((sum, figures) => sum + (figures?.attempts.succeeded ?? 0), 0)).to.equal(1_200);
  });

  it('shows the clicks waiting for the fold in /metrics as the queue click-rollup, and how late the oldest is', async () => {
    const metric = async (name: string, labels: string) => {
      const text = String((await call(t.url, 'GET', '/metrics')).text);
      const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
      if (!line) throw new Error(`/metrics has no ${name}{${labels}}`);
      return Number(line.split(' ').at(-1));
    };
    const queue = 'queue="click-rollup"';
    // This daemon's periodic fold is paused, so the clicks wait as long as the test says.
    const fold = t.daemon.services.jobs.workers.find((worker) => worker.name === 'click-rollup-fold');
    if (!fold) throw new Error('the daemon runs no click fold');
    await fold.stop();
    const signal = new AbortController().signal;
    try {
      // Whatever earlier tests left pending is folded first.
      await t.daemon.services.clicks.fold.job.run(signal);
      for (let i = 0; i < 3; i++) expect((await follow(`/r/${t.merchant.publicId}/${code}`)).status).to.equal(302);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await metric('affiliated_queue_depth', queue)).to.equal(3);
      expect(await metric('affiliated_queue_oldest_due_seconds', queue)).to.be.at.least(1);
      expect(await metric('affiliated_queue_dead', queue)).to.equal(0);

      expect(await t.daemon.services.clicks.fold.job.run(signal)).to.equal(3);
      expect(await metric('affiliated_queue_depth', queue)).to.equal(0);
      expect(await metric('affiliated_queue_oldest_due_seconds', queue)).to.equal(0);
      expect(await metric('affiliated_queue_attempts_total', `${queue},outcome="succeeded"`)).to.be.at.least(3);
    } finally {
      fold.start();
    }
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { runCli } from '../helpers/cli.js';
import { servicesFor, useTestDaemon } from '../helpers/daemon.js';
import { ENGINE } from '../helpers/database.js';
import { addAffiliate } from '../helpers/events.js';
import { call } from '../helpers/http.js';
import { countryDatabase } from '../helpers/mmdb.js';

const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const dir = mkdtempSync(path.join(os.tmpdir(), 'affiliated-geoip-'));
const database = path.join(dir, 'countries.mmdb');
writeFileSync(database, countryDatabase({ '203.0.113.0/24': 'BR', '198.51.100.0/25': 'PT', '2001:db8::/32': 'DE' }));

describe(`GEOIP_DB: a click's country (${ENGINE})`, () => {
  // Behind a proxy: the client's address is the one X-Forwarded-For names.
  const t = useTestDaemon({ GEOIP_DB: database, TRUST_PROXY: 'true' });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('places a click by its client address, and the analytics count it in that country; unmapped is unknown', async () => {
    await servicesFor(t.db).campaigns.update(t.merchant.campaignId, { siteUrl: 'https://shop.example/' });
    const { code } = await addAffiliate(t.db, t.merchant.campaignId);
    const click = async (from: string) => {
      const reply = await call(t.url, 'GET', `/r/${t.merchant.publicId}/${code}`, {
        headers: { 'user-agent': FIREFOX, 'x-forwarded-for': from },
      });
      expect(reply.status).to.equal(302);
    };
    await click('203.0.113.7');
    await click('203.0.113.200');
    await click('2001:db8::1');
    await click('198.51.100.200');
    const countries = await t.db('clicks').orderBy('id').pluck('country');
    expect(countries).to.deep.equal(['BR', 'BR', 'DE', null]);
    const reply = await call(t.url, 'GET', '/v1/analytics?metrics=clicks&interval=month&groupBy=country', {
      key: t.merchant.key,
    });
    expect(reply.status, reply.text).to.equal(200);
    const byCountry = Object.fromEntries(
      (reply.body.series as { group: string; points: { clicks: number }[] }[]).map((s) => [
        s.group,
        s.points.reduce((n, p) => n + p.clicks, 0),
      ]),
    );
    expect(byCountry).to.deep.equal({ '': 1, BR: 2, DE: 1 });
  });

  it('a GEOIP_DB that cannot be read stops the start with one line, exit 1', async function () {
    // Read before any database is opened: the same on both engines, so checked once.
    if (ENGINE !== 'sqlite') this.skip();
    const missing = path.join(dir, 'nowhere.mmdb');
    // An existing (empty) SQLite file: the start says nothing of creating one.
    const sqlite = path.join(dir, 'x.sqlite3');
    writeFileSync(sqlite, '');
    const serve = (geoipDb: string) =>
      runCli(['serve', '--port', '0'], { cwd: dir, env: { DATABASE_URL: `sqlite:${sqlite}`, GEOIP_DB: geoipDb } });
    const res = await serve(missing);
    expect(res.code).to.equal(1);
    expect(res.stderr.trim()).to.equal(
      `error: GEOIP_DB: cannot read ${missing} (ENOENT): give the path of a MaxMind-format database (.mmdb), or unset GEOIP_DB`,
    );
    const notADatabase = path.join(dir, 'countries.txt');
    writeFileSync(notADatabase, 'BR 203.0.113.0/24\n');
    const bad = await serve(notADatabase);
    expect(bad.code).to.equal(1);
    expect(bad.stderr.trim()).to.match(
      /^error: GEOIP_DB: .*countries\.txt is not a MaxMind-format database \(\.mmdb\)/,
    );
  });
});

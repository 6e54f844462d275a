import { expect } from 'chai';
import { HttpError } from '../../server/errors.js';
import { parseJson, runCliInProcess } from '../helpers/cli.js';
import { servicesFor } from '../helpers/daemon.js';
import { createTestDatabase, ENGINE, type TestDatabase } from '../helpers/database.js';

/**
 * Operator input longer or larger than its column: MariaDB refuses it (ER_DATA_TOO_LONG,
 * ER_WARN_DATA_OUT_OF_RANGE), SQLite keeps it. Both engines must answer the same: the CLI with a
 * usage error naming the limit, the services with a validation error, before the database.
 */
describe(`operator names, ids and limits are bounded the same on every engine (${ENGINE})`, () => {
  let t: TestDatabase;
  before(async () => {
    t = await createTestDatabase();
  });
  after(async () => t.drop());
  const cli = (...args: string[]) => runCliInProcess(args, { env: { DATABASE_URL: t.url } });

  it('refuses what the columns do not hold as usage errors naming the limit, and nothing is stored', async () => {
    const made = await cli('campaigns', 'create', '--name', 'Shop', '--id', 'shop', '--json');
    expect(made.code, made.stderr).to.equal(0);
    const cases: Array<[string[], string]> = [
      [
        ['keys', 'create', '--campaign', 'shop', '--name', 'k'.repeat(101)],
        'It must be at most 100 characters (this one has 101).',
      ],
      // Characters as the database counts them: 100 emoji fit, 101 do not.
      [['keys', 'create', '--campaign', 'shop', '--name', '🔑'.repeat(101)], 'at most 100 characters'],
      [['campaigns', 'create', '--name', 'c'.repeat(201)], 'It must be at most 200 characters'],
      [['campaigns', 'create', '--name', 'Spring', '--id', 'p'.repeat(65)], 'It must be 3 to 64 letters'],
      [['campaigns', 'create', '--name', 'Spring', '--cookie-days', '99999999999'], 'from 1 to 400'],
      [['plans', 'create', '--name', 'p'.repeat(65)], 'It must be 1 to 64 letters'],
      [['plans', 'create', '--name', 'big', '--max-affiliates', '99999999999'], 'from 0 to 1000000000'],
      [
        ['init', '--name', 'i'.repeat(201), '--plan', 'free', '--base-url', 'http://127.0.0.1:9'],
        'at most 200 characters',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await cli(...args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(2);
      expect(result.stderr, args.join(' ')).to.include(message);
    }
    const fits = await cli('keys', 'create', '--campaign', 'shop', '--name', '🔑'.repeat(100), '--json');
    expect(fits.code, fits.stderr).to.equal(0);
    expect(parseJson(fits).name).to.equal('🔑'.repeat(100));
    const { keys } = parseJson(await cli('keys', 'list', '--json'));
    expect(keys).to.have.length(1);
    const { campaigns } = parseJson(await cli('campaigns', 'list', '--json'));
    expect(campaigns).to.have.length(1);
  });

  it('the services refuse the same values with a 400, whatever calls them', async () => {
    const services = servicesFor(t.db);
    const campaign = await services.campaigns.create({ name: 'Other', publicId: 'other-1' });
    const refusals = [
      () => services.apiKeys.create({ campaign: campaign.id, name: 'k'.repeat(101) }),
      () => services.campaigns.create({ name: 'Long cookie', cookieDays: 401 }),
      () => services.plans.create({ name: 'huge', maxAffiliates: 5_000_000_000, maxMonthlyConversions: null }),
    ];
    for (const refuse of refusals) {
      const err = await refuse().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).to.be.instanceOf(HttpError);
      expect((err as HttpError).status).to.equal(400);
    }
  });
});

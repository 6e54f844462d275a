import { expect } from 'chai';
import { ESLint } from 'eslint';

/**
 * The walls of docs/architecture.md are lint rules (eslint.config.js): an import that crosses one
 * fails `npm run lint`. Each case lints a one-line file placed in a folder, as the linter sees it.
 */
const crossings: [file: string, source: string][] = [
  ['shared/schemas/x.ts', "import Koa from 'koa';"],
  ['shared/contract/x.ts', "import { createDb } from '../../server/db/knex.js';"],
  ['shared/x.ts', "import { readFileSync } from 'node:fs';"],
  ['shared/client/x.ts', "import { program } from '../../cli/program.js';"],
  ['server/services/x.ts', "import { registerRoutes } from '../http/register.js';"],
  ['server/services/events/x.ts', "import type { AffiliateRow } from '../../db/rows.js';"],
  ['server/services/x.ts', "import type { Knex } from 'knex';"],
  ['server/services/billing/x.ts', "import type { BillingEventRow } from '../../db/billingRows.js';"],
  ['server/services/x.ts', "import { chunks } from '../db/bulk.js';"],
  ['server/services/billing/x.ts', "import { storeFlush } from '../events/flush.js';"],
  ['server/services/x.ts', "import type { IntakeJob } from './events/records.js';"],
  ['server/routes/x.ts', "import { createEventIntake } from '../services/events/intake.js';"],
  ['server/x.ts', "import { eventService } from './services/events/service.js';"],
  ['cli/commands/x/actions.ts', "import { earn } from '../../../server/services/events/commission.js';"],
  ['server/services/webhooks/x.ts', "import type { Context } from 'koa';"],
  ['server/repositories/x.ts', "import { affiliateService } from '../services/affiliates.js';"],
  ['server/routes/x.ts', "import { findAffiliate } from '../repositories/affiliates.js';"],
  ['server/middleware/x.ts', "import { findApiKey } from '../repositories/apiKeys.js';"],
  ['server/db/migrations/x.ts', "import { searchWords } from '../../repositories/affiliateSearch.js';"],
  ['cli/commands/x/actions.ts', "import { findAffiliate } from '../../../server/repositories/affiliates.js';"],
];

const allowed: [file: string, source: string][] = [
  ['server/services/x.ts', "import { inTransaction } from '../db/knex.js';"],
  ['server/services/billing/x.ts', "import type { RecordSale } from '../events/index.js';"],
  ['server/services/x.ts', "import { eventService } from './events/index.js';"],
  ['server/services/events/x.ts', "import { storeFlush } from './flush.js';"],
  ['server/services/billing/x.ts', "import type { ProviderEvent } from './events.js';"],
  ['server/routes/x.ts', "import type { EventService } from '../services/events/index.js';"],
  ['cli/x.ts', "import { registerEvents } from './commands/events/index.js';"],
  ['server/repositories/x.ts', "import type { Knex } from 'knex';"],
  ['server/db/migrations/x.ts', "import type { Knex } from 'knex';"],
  ['cli/x.ts', "import { withServices } from './operator.js';"],
];

describe('architecture walls (eslint no-restricted-imports)', function () {
  this.timeout(30_000);
  const eslint = new ESLint({ cwd: process.cwd() });

  async function wallMessages(file: string, source: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${source}\nexport const used = 1;\n`, { filePath: file });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
  }

  for (const [file, source] of crossings) {
    it(`refuses in ${file}: ${source}`, async () => {
      expect(await wallMessages(file, source)).to.have.length(1);
    });
  }
  for (const [file, source] of allowed) {
    it(`allows in ${file}: ${source}`, async () => {
      expect(await wallMessages(file, source)).to.deep.equal([]);
    });
  }
});

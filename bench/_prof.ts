import { startTestDaemon, servicesFor } from '../test/helpers/daemon.js';
import { createTestDatabase } from '../test/helpers/database.js';
import { addAffiliate, conversion } from '../test/helpers/events.js';
import { call } from '../test/helpers/http.js';
const engine = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'mysql';
const database = await createTestDatabase({ engine });
const daemon = await startTestDaemon(database.url);
const { campaigns, apiKeys } = servicesFor(database.db);
const c = await campaigns.create({ name: 'p', plan: 'unlimited' });
const k = await apiKeys.create({ campaign: c.id, name: 'p' });
const a = await addAffiliate(database.db, c.id);
let n = 0;
const started = Date.now();
for (let b = 0; b < 40; b++) {
  const events = Array.from({ length: 500 }, () => conversion(c.publicId, a.code, `o-${++n}`, 10 + (n % 50), { properties: { order_id: `o-${n}`, order_value: 12.5, sku: 'abc', qty: 2 } }));
  const r = await call(daemon.url, 'POST', '/v1/events', { key: k.key, body: { events } });
  if (r.status !== 200) throw new Error(String(r.status));
}
console.log('events/s', (n / ((Date.now() - started) / 1000)).toFixed(0));
await daemon.close(); await database.drop();

/**
 * The baseline: a bare Koa app answering `{"success":true}` to everything, in its own process
 * like the daemon it is compared with. Prints `listening <url>` once it accepts connections.
 */
import type { AddressInfo } from 'node:net';
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  ctx.body = { success: true };
});
const server = app.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  console.log(`listening http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

#!/usr/bin/env node
// Part of `npm run build`: tsc compiles only TypeScript, so what the daemon serves or renders as
// written is copied beside the compiled server: the browser tracking script (`GET
// /v1/sdk/tracker.js`), and the portal's templates, stylesheet and copy-button script.
import { copyFileSync, cpSync, mkdirSync } from 'node:fs';

mkdirSync('dist/server/sdk', { recursive: true });
copyFileSync('server/sdk/tracker.js', 'dist/server/sdk/tracker.js');
for (const folder of ['templates', 'assets']) {
  cpSync(`server/views/${folder}`, `dist/server/views/${folder}`, { recursive: true });
}

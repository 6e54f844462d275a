#!/usr/bin/env node
// Part of `npm run build`: tsc compiles only TypeScript, so the browser tracking script (plain
// JavaScript, served as written by `GET /v1/sdk/tracker.js`) is copied beside the compiled server.
import { copyFileSync, mkdirSync } from 'node:fs';

mkdirSync('dist/server/sdk', { recursive: true });
copyFileSync('server/sdk/tracker.js', 'dist/server/sdk/tracker.js');

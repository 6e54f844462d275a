import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { DOCS_ASSETS_PATH } from '../services/reference.js';

/** Swagger UI renders the reference; it is served from the installed package, never fetched. */
const PACKAGE_DIR = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  // No badge from the public validator: the page makes no request beyond this daemon.
  validatorUrl: null,
});
`;

const ASSETS: Record<string, { type: string; load: () => Promise<Buffer | string> }> = {
  'swagger-ui.css': { type: 'text/css', load: () => readFile(path.join(PACKAGE_DIR, 'swagger-ui.css')) },
  'swagger-ui-bundle.js': {
    type: 'application/javascript',
    load: () => readFile(path.join(PACKAGE_DIR, 'swagger-ui-bundle.js')),
  },
  'favicon-32x32.png': { type: 'image/png', load: () => readFile(path.join(PACKAGE_DIR, 'favicon-32x32.png')) },
  'init.js': { type: 'application/javascript', load: async () => INIT_SCRIPT },
};

/** The reference page's scripts and styles (`/docs/assets/...`): a fixed list, read once, cached by browsers. */
export function docsAssets() {
  const loaded = new Map<string, Promise<Buffer | string>>();
  return async function serveDocsAsset(ctx: Context, next: Next): Promise<void> {
    if (!ctx.path.startsWith(`${DOCS_ASSETS_PATH}/`) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      return next();
    }
    const name = ctx.path.slice(DOCS_ASSETS_PATH.length + 1);
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return next();
    let content = loaded.get(name);
    if (!content) {
      content = asset.load();
      loaded.set(name, content);
    }
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = await content;
  };
}

import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';

/**
 * The one template engine of the portal's pages and the mails: Eta, whose `<%= %>` escapes
 * `& < > " '` in everything it prints (autoEscape is on, as by default). Templates never use
 * the raw `<%~ %>` but to place a layout's body or a partial, both rendered by Eta themselves:
 * no text of an affiliate is ever printed unescaped (test/unit/portalEscaping.test.ts).
 */
const TEMPLATES = fileURLToPath(new URL('./templates/', import.meta.url));

const eta = new Eta({ views: TEMPLATES, autoEscape: true, cache: true, autoTrim: [false, 'nl'] });

/** A template of `server/views/templates/` (without `.eta`) filled in with `data` (`it` in the template). */
export function renderView(name: string, data: object): string {
  return eta.render(`./${name}`, data);
}

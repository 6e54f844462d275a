import { isbot } from 'isbot';
import UAParser from 'ua-parser-js';
import { UTM_TAGS, type UtmTag } from '../../repositories/clicks.js';

/** What a click keeps of its visitor's browser (docs/analytics.md): never the agent's text. */
export interface Visitor {
  bot: boolean;
  /** `desktop`, `mobile`, `tablet`, `console`, `smarttv`, `wearable`, `embedded` or `bot`. */
  device: string;
  browser: string;
  os: string;
}

const UNKNOWN = 'unknown';
/** Parsed agents remembered: traffic repeats a few hundred agents, and parsing is the click path's costliest step. */
const CACHE_ENTRIES = 2_000;
const parsed = new Map<string, Visitor>();

const cut = (text: string | undefined, length: number) => (text ? text.slice(0, length) : UNKNOWN);

/** The user agent parsed (ua-parser-js) and flagged (isbot); no agent at all is a script, so a bot. */
export function visitorOf(userAgent: string): Visitor {
  const known = parsed.get(userAgent);
  if (known) return known;
  const bot = userAgent.trim() === '' || isbot(userAgent);
  const result = new UAParser(userAgent).getResult();
  const visitor: Visitor = {
    bot,
    device: bot ? 'bot' : (result.device.type ?? 'desktop'),
    browser: cut(result.browser.name, 64),
    os: cut(result.os.name, 64),
  };
  if (parsed.size >= CACHE_ENTRIES) parsed.clear();
  parsed.set(userAgent, visitor);
  return visitor;
}

/** The referring site's host, lower-cased; none for a missing or unreadable `Referer`. */
export function referrerHost(referer: string | undefined): string | null {
  if (!referer) return null;
  try {
    const host = new URL(referer).hostname.toLowerCase();
    return host === '' ? null : host.slice(0, 255);
  } catch {
    return null;
  }
}

type Query = Readonly<Record<string, string | string[] | undefined>>;

/** The link's `utm_*` tags (the first of a repeated one), trimmed, at most 255 characters; empty is none. */
export function utmTags(query: Query): Record<UtmTag, string | null> {
  const tags = {} as Record<UtmTag, string | null>;
  for (const tag of UTM_TAGS) {
    const raw = query[tag];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim().slice(0, 255);
    tags[tag] = value ? value : null;
  }
  return tags;
}

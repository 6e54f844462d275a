/** The languages of the portal and its mails (docs/portal.md). */
export const LOCALES = ['en', 'pt-BR'] as const;
export type Locale = (typeof LOCALES)[number];

/** When a browser names neither language. */
export const DEFAULT_LOCALE: Locale = 'en';

/**
 * The best of our languages for an `Accept-Language` header (RFC 9110 §12.5.4): its ranges by
 * quality, the first `pt…` or `en…` wins; `*` or nothing we speak gives the default.
 */
export function negotiateLocale(header: string | undefined): Locale {
  if (!header) return DEFAULT_LOCALE;
  const ranges = header
    .split(',')
    .slice(0, 32)
    .map((part, index) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([01](?:\.\d{0,3})?)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), index };
    })
    .filter((range) => range.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of ranges) {
    if (tag === 'pt' || tag.startsWith('pt-')) return 'pt-BR';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return DEFAULT_LOCALE;
}

/** A stored locale (an affiliate's), or the default when it is not one of ours. */
export function localeOf(value: string | null | undefined): Locale {
  return value === 'pt-BR' || value === 'en' ? value : DEFAULT_LOCALE;
}

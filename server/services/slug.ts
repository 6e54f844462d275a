import { randomPublicId } from './random.js';

/**
 * A readable public id from a campaign name ("Spring Sale!" → `spring-sale`), so the id in
 * the tracking snippet and the docs' `spring-sale` are the same kind of thing. Accents are
 * dropped, anything else not a letter or digit becomes one `-`. Too short a name gets a
 * random id instead.
 */
function slugOf(name: string): string | undefined {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48)
    .replace(/-+$/, '');
  return slug.length >= 3 ? slug : undefined;
}

/**
 * The public id to try at a given attempt: the slug, then `slug-2`, `slug-3`, ... ; the unique
 * index decides (several daemons may create at once), and after a while a random suffix.
 */
export function publicIdCandidate(name: string, attempt: number): string {
  const slug = slugOf(name);
  if (slug === undefined) return randomPublicId();
  if (attempt === 0) return slug;
  if (attempt < 20) return `${slug}-${attempt + 1}`;
  return `${slug}-${randomPublicId().slice(0, 6)}`;
}

import { UsageError } from './errors.js';

/** One page of a list answer, whatever the resource. */
export interface Page<T> {
  items: T[];
  total: number;
  totalPages: number;
}

/**
 * `--all` of a list command: follows every page. Lists are newest first, so a row created while
 * we page shifts later pages by one; ids already seen are dropped rather than printed twice.
 */
export async function everyPage<T extends { id: number }>(
  fetch: (page: number) => Promise<Page<T>>,
): Promise<{ items: T[]; total: number }> {
  const seen = new Set<number>();
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const answer = await fetch(page);
    for (const item of answer.items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      items.push(item);
    }
    if (answer.items.length === 0 || page >= answer.totalPages) return { items, total: answer.total };
  }
}

/** `--all` reads every page itself. */
export function checkAll(flags: { all?: boolean; page?: number }): void {
  if (flags.all && flags.page !== undefined) throw new UsageError('--all and --page do not go together');
}

/** Rows a request when `--all` follows the pages: the most a page holds, unless --limit says otherwise. */
export const ALL_PAGE_SIZE = 100;

import type { ApiClient } from '../shared/client/index.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';
import { type ListFormat, note, pageNote, plural, printJson } from './output.js';
import { pacedClient } from './rateLimit.js';

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

/** Which page a list request asks for. */
export type Paging = { page?: number; limit?: number };

/** The flags every list command takes: its page, `--all`, and how rows are printed. */
export type ListFlags = Paging & { all?: boolean; output?: ListFormat };

/** A page as the API answers it: its rows sit under the noun's plural. */
type PageAnswer = { page: number; totalPages: number; total: number };

/** What a list command lists: its noun, one page's request, and how a person sees rows. */
export interface ListSpec<A extends PageAnswer, T> {
  /** Singular noun ("conversion"); its plural is the rows' key in `--json` of `--all`. */
  noun: string;
  /** One page, asked of `api`: the command's client, or with `--all` one that waits out the rate limit. */
  fetch(api: ApiClient, paging: Paging): Promise<A>;
  rows(answer: A): T[];
  /** Prints rows as a table or CSV. */
  show(items: T[]): void;
}

/**
 * A list command's answer: one page with its note (JSON: the API's answer as it is), or with
 * `--all` every page (JSON: the rows under the noun's plural, and the total), waiting out the
 * rate limit between pages (rateLimit.ts) rather than losing the pages already read.
 */
export async function printList<A extends PageAnswer, T extends { id: number }>(
  io: Io,
  client: ApiClient,
  json: boolean | undefined,
  flags: { all?: boolean; page?: number; limit?: number },
  list: ListSpec<A, T>,
): Promise<void> {
  checkAll(flags);
  if (flags.all) {
    const limit = flags.limit ?? ALL_PAGE_SIZE;
    const paced = pacedClient(io, client);
    const every = await everyPage(async (page) => {
      const answer = await list.fetch(paced, { page, limit });
      return { ...answer, items: list.rows(answer) };
    });
    if (json) return printJson(io, { [`${list.noun}s`]: every.items, total: every.total });
    list.show(every.items);
    return note(io, plural(every.total, list.noun));
  }
  const answer = await list.fetch(client, { page: flags.page, limit: flags.limit });
  if (json) return printJson(io, answer);
  list.show(list.rows(answer));
  pageNote(io, answer, plural(answer.total, list.noun), true);
}

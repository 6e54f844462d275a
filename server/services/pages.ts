/** The paging fields of every list answer (spec §4.2): the page asked for, and how many pages there are. */
export function pageOf(query: { page: number; limit: number }, total: number) {
  return { total, page: query.page, limit: query.limit, totalPages: Math.ceil(total / query.limit) };
}

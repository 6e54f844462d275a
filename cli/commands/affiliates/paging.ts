import type { ApiClient } from '../../../shared/client/index.js';
import type { Affiliate, AffiliateStatus } from '../../../shared/schemas/affiliate.js';

/**
 * `--all`: follows every page. The list is newest first, so an affiliate created while we page
 * shifts later pages by one; ids already seen are dropped rather than printed twice.
 */
export async function listAll(
  client: ApiClient,
  filters: { status?: AffiliateStatus; search?: string; groupId?: number },
  limit: number,
): Promise<{ affiliates: Affiliate[]; total: number }> {
  const seen = new Set<number>();
  const affiliates: Affiliate[] = [];
  for (let page = 1; ; page++) {
    const answer = await client.affiliates.list({ query: { ...filters, page, limit } });
    for (const affiliate of answer.affiliates) {
      if (seen.has(affiliate.id)) continue;
      seen.add(affiliate.id);
      affiliates.push(affiliate);
    }
    if (answer.affiliates.length === 0 || page >= answer.totalPages) return { affiliates, total: answer.total };
  }
}
